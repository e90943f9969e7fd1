"""Shared test settings: hypothesis runs without deadlines (CI machines are slow and shared)."""

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

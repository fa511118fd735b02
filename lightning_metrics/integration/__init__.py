"""Lightning integration: MetricsCallback and MetricsMixin on one engine."""

__all__: list[str] = []

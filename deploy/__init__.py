"""How processes start and where they run: the `tankrl` CLI, configs, Ray launch, cluster files."""

"""How processes start and where they run: the `tankrl` CLI, configs, Ray launch, cluster files."""

if __name__ != "tankrl.deploy":  # imported from the repository's root as a top-level package
    raise ImportError(
        f"import tankrl.deploy, not {__name__}: tankrl installs one namespace, tankrl"
    )

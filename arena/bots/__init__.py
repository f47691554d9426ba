"""Bot processes: manifests, builds, the launcher (the sandbox seam), the process
transport with its stderr log, and an in-memory transport for tests. Nothing here knows
the protocol's messages or the rules of poker: it moves lines to and from programs."""

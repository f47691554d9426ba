"""Bot processes: manifests, builds, the launcher (the sandbox seam), the process transport
with its non-blocking pipes, stderr log and process-tree kill, start-up timing, and an
in-memory transport for tests. Nothing here knows the rules of poker, and only the start-up
timer knows a protocol message (its ``hello``): the rest moves lines to and from programs."""

"""Load orchestration: files in, ``TraceStore``s out, with progress, cancel and memory hygiene."""

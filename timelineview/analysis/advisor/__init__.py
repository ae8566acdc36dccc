"""What the trace shows that the producer's advisor checks (metrics.md §8): AI Core frequency drops, dynamic
shapes, operators launched on fewer blocks than the chip has cores, runs of small vector operators a fusion
would remove; and each card's op-type table as the slow-operator verdict reads it. Each check is computed once
per card, with its evidence, into the card's finding facts. No Qt."""

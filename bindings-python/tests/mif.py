"""Deterministic MIF memories for the tests (no randomness: failures reproduce)."""

from __future__ import annotations

from typing import Any, Dict, List

NAMESPACES = ["_semantic/decisions", "_semantic/patterns", "_episodic/sessions", "_procedural/howto", "_semantic/facts"]
TYPES = ["semantic", "episodic", "procedural"]


def memory(i: int) -> Dict[str, Any]:
    """One Full-detail MIF memory."""
    return {
        "id": f"mem-{i:05d}",
        "memory_type": TYPES[i % len(TYPES)],
        "content": f"Memory {i}: the cache layer keeps hot keys in memory and spills cold ones to disk. " * 2,
        "created": f"2025-01-{1 + i % 28:02d}T10:00:00Z",
        "modified": f"2025-02-{1 + i % 28:02d}T10:00:00Z",
        "namespace": NAMESPACES[i % len(NAMESPACES)],
        "title": f"Decision {i} about caching and storage layout",
        "tags": ["architecture", f"tag{i % 7}"],
        "status": "active",
        "summary": f"Summary of memory {i}",
        "provenance": {"confidence": round(0.5 + (i % 50) / 100, 2), "trust_level": "high", "source_type": "agent"},
        "entities": [{"name": "cache", "type": "component"}],
    }


def memories(n: int) -> List[Dict[str, Any]]:
    """``n`` memories."""
    return [memory(i) for i in range(n)]

"""The chips' peak compute figures (Ascend parts and GPU parts) that MFU is measured against. No Qt."""

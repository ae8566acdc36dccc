"""The producers of the traces read, one module each: how their files are found, what their lanes and
slices are, how their device is worded. The rest of the package asks these modules."""

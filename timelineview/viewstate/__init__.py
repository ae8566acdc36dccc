"""What is on screen, without Qt: viewport, level of detail, lanes, search, selection and hit tests."""

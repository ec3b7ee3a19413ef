// A check header, for the analysis-layering-is-checked test.

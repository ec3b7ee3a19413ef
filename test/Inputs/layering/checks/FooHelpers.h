// A header of the check layer that is not named *Check.h.

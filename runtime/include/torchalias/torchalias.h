// torchalias/torchalias.h: the whole CPU runtime in one include.
//
//   isolate.h      isolate(), isolate_args(): fresh storage for tensors
//   parameters.h   unique_parameters, parameter_tie_groups, untie, deep_clone
//   overlap.h      find_overlaps(): which tensors alias, and how
//   fingerprint.h  XXH3 fingerprints of CPU tensor memory
//   validate.h     the site validation macros and worker_guard
//   report.h       verdicts, modes and the JSON Lines report
//
// The CUDA part is a separate library: torchalias/cuda/fingerprint.h.
#pragma once

#include "torchalias/error.h"
#include "torchalias/fingerprint.h"
#include "torchalias/isolate.h"
#include "torchalias/overlap.h"
#include "torchalias/parameters.h"
#include "torchalias/report.h"
#include "torchalias/validate.h"

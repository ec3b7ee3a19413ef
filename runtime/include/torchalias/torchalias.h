// torchalias/torchalias.h: the whole CPU runtime in one include.
//
//   isolate.h      isolate(), isolate_args(): fresh storage for tensors
//   parameters.h   unique_parameters, parameter_tie_groups, untie, deep_clone
//   overlap.h      find_overlaps(): which tensors alias, and how
//   fingerprint.h  fingerprints of tensor memory (XXH3 on the CPU)
//   validate.h     the site validation macros and worker_guard
//   instrument.h   the macros `torchalias instrument` inserts at findings
//   report.h       verdicts, modes and the JSON Lines report
//
// The CUDA part is a separate library: torchalias/cuda/fingerprint.h.
#pragma once

#include "torchalias/error.h"
#include "torchalias/fingerprint.h"
#include "torchalias/instrument.h"
#include "torchalias/isolate.h"
#include "torchalias/overlap.h"
#include "torchalias/parameters.h"
#include "torchalias/report.h"
#include "torchalias/validate.h"

"""msprof / CANN exports (``msprof_*.json``, per-iteration and slice files, ``msprof_<n>.db``): how their
files are named and grouped, and the hardware task types and communication spellings CANN writes (which
torch_npu and MindSpore ≥ 2.2 carry too, being written through CANN)."""

from __future__ import annotations

import re

KIND = "msprof"  # discovery's kind of a card read from these files, and the classification's mode
# Our ids of the two formats (the synthetic generator's layouts): CANN 8 / torch_npu's one file per card,
# and python msprof's per-iteration export
FORMAT_ID = "msprof"
PER_ITERATION_FORMAT_ID = "msprof_per_iteration"
FILE_NAME = re.compile(r"^msprof(_slice_\d+)?(_\d+)*\.json(\.gz)?$")
DATABASE = re.compile(r"^msprof_\d+\.db$")
# Per-iteration exports (``msprof_<pid>_<iteration>_<piece>.json``) and slices of one big export:
# the pieces of one capture, merged in this order.
ITERATION_FILE = re.compile(r"^msprof_(\d+)_(\d+)_(\d+)\.json")
SLICE_FILE = re.compile(r"^msprof_slice_(\d+)_")
CAPTURE_FOLDER = re.compile(r"^PROF_\d+_(\d+)_")  # PROF_<n>_<timestamp>_…: the newest capture wins
DEVICE_FOLDER = re.compile(r"^device_(\d+)$")
CAPTURE_FOLDER_NAME = "PROF_{number:06d}_{stamp}_{tag}"  # as written: <stamp> the capture's start
DEVICE_FOLDER_NAME = "device_{}"
# The per-iteration export's files, ``<name>_<device>_<model id>_<iteration>.json`` in the device folder's
# ``timeline``: the whole iteration, and its subsets (hardware streams, HCCL, the step-trace lane)
ITERATION_EXPORT, TASK_TIME_EXPORT, HCCL_EXPORT, STEP_TRACE_EXPORT = "msprof", "task_time", "hccl", "step_trace"
DEVICE_INFO_PREFIX = "info.json."  # info.json.<device>, whose rank_id is the card's rank
# Where a card's device description lies from its data's folder (the folder itself, a device folder, a capture
# folder), and its fields: the chip's AI Core and vector core counts and nominal AI Core frequency (MHz)
DEVICE_INFO_PATTERNS = ("info.json*", "device_*/info.json*", "PROF_*/device_*/info.json*")
DEVICE_INFO_LIST = "DeviceInfo"
DEVICE_INFO_AI_CORES = "ai_core_num"
DEVICE_INFO_VECTOR_CORES = "aiv_num"
DEVICE_INFO_AI_CORE_MHZ = "aic_frequency"
# The finding on the ``AI Core Freq`` counter msprof writes, named after it
FREQUENCY_RULE = "ai_core_frequency_low"

# The hardware process's ``Step Trace`` lane (a marker lane, not compute)
STEP_TRACE_LANE_PREFIX = "step trace"
STEP_TRACE_LANE = "Step Trace(Model ID:{})"  # as written, by model id
# Its events as written, by iteration number (and their categories): the step, its FP-to-BP span and its tail
ITERATION_EVENT, FP_BP_EVENT, REFRESH_EVENT = "Iteration {}", "FP_BP Time {}", "Iteration Refresh {}"
ITERATION_CATEGORY, FP_BP_CATEGORY, REFRESH_CATEGORY = "Iteration Time", "FP_BP Time", "Iteration Refresh"
# and, by iteration and collective number, each reduce, and the flow that closes the iteration
REDUCE_EVENT, REDUCE_CATEGORY = "Reduce_{}_{}", "Reduce"
DATA_AUG_FLOW, DATA_AUG_CATEGORY = "Data_aug Bound {}", "Data_aug Bound"
DURATION_NS_ARG, DURATION_US_ARG = "{}(ns)", "{}(us)"  # an event's length, named after its category
ITERATION_END_ARG = "Iteration End"
REDUCE_START_ARG, REDUCE_END_ARG = "Reduce Start {}", "Reduce End {}"  # by collective number
# A step's number in the name of its ``Iteration N`` event (``Model M Iteration N`` in some exports)
ITERATION_EVENT_NAME = re.compile(r"^(?:model \d+ )?iteration (\d+)$", re.IGNORECASE)
ITERATION_ID_ARG = "Iteration ID"
# The args keys of the phase points of a step (microseconds)
FP_START_ARG, BP_END_ARG = "FP Start", "BP End"
# A pipeline stage's receive operator as msprof names it
RECEIVE_OPERATOR = r"hcom_receive"

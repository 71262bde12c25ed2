# The layers of src/, lowest first. Each entry is "folder: the folders it builds on"; a folder may include its
# own headers and those of every folder it builds on, directly or through them, and nothing above it.
#   inputs:   common, query, gpu, engines, tables, config, calibration (the calibration file)
#   models:   compat, roofline, serving, simulate
#   services: engine (the estimator), compare, calibrate (the fitters), planning (plan and sweep searches)
#   edges:    api (the C ABI), cli (the command)
# src/CMakeLists.txt links one object library per folder along these edges, and cmake/check_layers.cmake checks
# every #include against them (at configure time and as the `layering` test), so a back edge fails the build.
set(MFUSIM_LAYERS
    "common:"
    "query:common"
    "gpu:common"
    "engines:common"
    "tables:gpu"
    "config:common"
    "compat:config gpu query tables"
    "roofline:config engines gpu query tables"
    "calibration:engines gpu roofline"
    "serving:roofline"
    "simulate:serving"
    "engine:calibration compat simulate"
    "compare:engine"
    "calibrate:compare"
    "planning:engine"
    "api:calibrate planning"
    "cli:calibrate planning")

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Regenerates the seed corpora in tests/fuzz/corpus/ from tests/golden/ (run
# from anywhere; existing seed-* files are overwritten, other files - crash
# reproducers, inputs libFuzzer found - are kept).
#   decode, dictionary, json   single golden files or their first record
#   reader, convert_load,      whole golden PROF_ directories packed in the
#   export                     chunk format of targets.hpp write_prof_dir()
#   framework                  the FRAMEWORK files of tests/golden-pt
import pathlib
import re
import struct

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden"
CORPUS = HERE / "corpus"

# Must list the files in the order of kProfFiles in targets.hpp.
PROF_FILES = re.findall(r'^\s+"([^"]+)",(?:\s*//.*)?$',
                        (HERE / "targets.hpp").read_text().split("kProfFiles[] = {")[1].split("};")[0], re.M)


def prof_dirs():
    return sorted(GOLDEN.glob("*/input/PROF_*"))


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + name)).write_bytes(data)


def pack(prof):
    out = b""
    for i, rel in enumerate(PROF_FILES):
        f = prof / rel
        if f.is_file():
            data = f.read_bytes()
            for k in range(0, max(len(data), 1), 0xFFFF):
                part = data[k:k + 0xFFFF]
                out += struct.pack("<BH", i, len(part)) + part
    return out


def main():
    for prof in prof_dirs():
        case = prof.parent.parent.name
        packed = pack(prof)
        write("reader", case, packed)
        write("convert_load", case, packed)
        write("export", case, packed)
        data = prof / "host" / "data"
        dev = prof / "device_0" / "data"
        records = {  # file -> record size
            data / "unaging.api_event.data.slice_0": 40,
            data / "unaging.compact.node_basic_info.slice_0": 64,
            data / "aging.compact.task_track.slice_0": 64,
            data / "aging.additional.tensor_info.slice_0": 256,
            data / "aging.additional.msproftx.slice_0": 256,
            data / "aging.additional.hccl_info.slice_0": 256,
            data / "aging.compact.hccl_op_info.slice_0": 64,
            data / "aging.additional.static_op_mem.slice_0": 256,
            dev / "stars_soc.data.0.slice_0": 64,
            dev / "stars_soc.data.0.slice_1": 64,  # acc_pmu: its first ACC_PMU record (the seed name of slice_0's)
            dev / "ffts_profile.data.0.slice_0": 128,
            dev / "npu_module_mem.data.0.slice_0": 24,
            dev / "npu_mem.data.0.slice_0": 32,
            dev / "aicpu.data.0.slice_0": 256,
            dev / "pcie.data.0.slice_0": 96,
            dev / "hccs.data.0.slice_0": 64,  # text: its header and first sample
            dev / "l2_cache.data.0.slice_0": 72,
            dev / "nic.data.0.slice_0": 200,  # text: its header and first sample
            dev / "roce.data.0.slice_0": 200,  # the same format
            dev / "socpmu.data.0.slice_0": 80,
            dev / "hbm.data.0.slice_0": 24,
            dev / "ddr.data.0.slice_0": 20,
            dev / "llc.data.0.slice_0": 24,
            dev / "qos.data.0.slice_0": 64,
            data / "host_cpu.data.slice_0": 18,  # text: its first line ("time <ns>")
            data / "host_mem.data.slice_0": 41,  # text: its first line
            data / "host_disk.data.slice_0": 24,  # text: its first line ("start_time <ns>")
            data / "host_network.data.slice_0": 18,  # text: its first line ("time <ns>")
            dev / "DATA_PREPROCESS.DP.0.slice_0": 128,
            prof / "device_1" / "data" / "DATA_PREPROCESS.dev.DP.1.slice_0": 80,  # text: its first line and "\n\0"
            data / "host_sys_cpu.data.slice_0": 160,  # text: a record's head and cpu lines
            data / "4242-CpuUsage.data.slice_0": 320,  # text: a whole record (stat, ProcessName, cpu)
            data / "host_sys_mem.data.slice_0": 240,  # text: a record's head and meminfo lines
            data / "4242-Memory.data.slice_0": 90,  # text: a whole record (statm, ProcessName, the blank line)
        }
        for f, size in records.items():
            if f.is_file() and f.stat().st_size >= size:
                write("decode", case + "-" + f.name.split(".slice")[0], f.read_bytes()[:size])
        for tag in ("hash_dic", "type_info_dic"):
            f = data / ("unaging.additional." + tag + ".slice_0")
            if f.is_file():
                write("dictionary", case + "-" + tag, f.read_bytes())
        for f in [prof / "host" / n for n in ("info.json", "sample.json", "start_info", "end_info")] + \
                 [prof / "device_0" / n for n in ("info.json.0", "sample.json")]:
            if f.is_file():
                write("json", case + "-" + f.parent.name + "-" + f.name, f.read_bytes())
    for f in sorted((HERE.parent / "golden-pt").glob("*/input/*_ascend_pt/FRAMEWORK/torch.*")):
        write("framework", f.parents[3].name + "_" + f.name, f.read_bytes())
    # The escapes and number forms the golden files do not have.
    write("json", "escapes", rb'{"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "n": [-0, 1.5e-3, 2E+10, true, false, null], "o": {}}')
    # A repeated key keeps its last value at its first place (json.hpp), in a small object and one past the index size.
    write("json", "duplicate-keys", ('{"a": 1, "b": [1, 2], "a": {"x": "y"}, ' + ', '.join('"k%d": %d' % (i, i) for i in range(20)) +
                                      ', "k3": "again", "b": null}').encode())


if __name__ == "__main__":
    main()

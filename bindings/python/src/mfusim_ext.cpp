// mfusim._mfusim: the compiled layer of the Python binding, over include/mfusim.h only.
//
// What is done here rather than in Python is what decides the per-call cost: reading requests (a NumPy array laid
// out as mfusim_request is passed to C as it is; an (n, 2) int64 array or a sequence of pairs is converted into a
// stack buffer, or a heap one past 64 requests), calling C with a caller-owned error struct, and turning a failed
// status into the exception class of mfusim._errors.
//
// NumPy arrays are read through NumPy's C API (data pointer, shape, strides, dtype), not the buffer protocol:
// NumPy rebuilds a structured dtype's format string on every buffer request, which cost ~1 us per call, more than
// the whole step. A dtype is accepted as mfusim_request's layout once (its buffer format compared with those of
// mfusim.REQUEST_DTYPE) and then recognised by identity. Other buffer objects (memoryview, array.array) still go
// through the buffer protocol. The friendly surface (keyword arguments, dataclasses, the
// context manager) is mfusim/__init__.py, which subclasses Estimator.
//
// Threading: a loaded estimator is immutable (mfusim.h), so every query may run on many threads at once. Short
// calls (step_time, step_detail) keep the GIL: they take less time than releasing it would. Long ones
// (step_time_batch, estimate, serve, construction) release it; while they run the native handle is pinned by a
// use count, so a close() from another thread frees it only when the last of them has returned.
#include <mfusim.h>
#include <nanobind/nanobind.h>
// NumPy's C API, compiled against NumPy 2 headers for NumPy >= 1.23 at run time (NPY_TARGET_VERSION, CMakeLists.txt).
#define NPY_NO_DEPRECATED_API NPY_1_23_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL mfusim_numpy_api
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <numpy/arrayobject.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- Errors ------------------------------------------------------------------------------------------------

// mfusim._errors.from_status(status, message): the exception instance for a status. Set at import.
PyObject* error_factory = nullptr;

// ---- Text ---------------------------------------------------------------------------------------------------

// Text from the library as a Python str. Messages, warnings and reports may quote a path or a name in bytes that
// are not UTF-8 (a Latin-1 file name); nb::str would raise a bare "conversion error" for them instead of showing
// the message: decoded with U+FFFD for what is not UTF-8, never refused.
nb::str text(const char* s, size_t n) {
    PyObject* str = PyUnicode_DecodeUTF8(s ? s : "", s ? static_cast<Py_ssize_t>(n) : 0, "replace");
    if (str == nullptr) throw nb::python_error();
    return nb::steal<nb::str>(str);
}
nb::str text(const char* s) {
    return text(s, s ? std::strlen(s) : 0);
}
// A char array field of a result struct (NUL-terminated within it, but never read past it).
template <size_t N>
nb::str field_text(const char (&field)[N]) {
    return text(field, strnlen(field, N));
}

[[noreturn]] void raise_status(mfusim_status status, const char* message) {
    nb::object exc = nb::borrow(error_factory)(status, text(message));
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    throw nb::python_error();
}

inline void check(mfusim_status status, const mfusim_error& error) {
    if (status != MFUSIM_OK) raise_status(status, error.message);
}

// A string argument as the C API takes it (NUL-terminated): one holding a NUL would reach the library cut there,
// so that "model.json\0junk" loaded "model.json"; refused, naming the argument (InvalidArgumentError, a ValueError).
const char* c_arg(const std::string& value, const char* name) {
    const size_t nul = value.find('\0');
    if (nul != std::string::npos) {
        raise_status(MFUSIM_ERR_INVALID_ARGUMENT, (std::string(name) + ": embedded NUL character at offset " +
                                                   std::to_string(nul) + " (the library reads text up to a NUL)")
                                                      .c_str());
    }
    return value.c_str();
}
const char* c_arg(const std::optional<std::string>& value, const char* name) {
    return value ? c_arg(*value, name) : nullptr;
}

// ---- Reading requests --------------------------------------------------------------------------------------

static_assert(sizeof(mfusim_request) == 24, "mfusim_request is 24 bytes (mfusim.h)");

// The buffer-protocol format strings NumPy gives for mfusim.REQUEST_DTYPE, in every spelling of that dtype
// (explicit or native byte order, aligned or not); registered by mfusim/__init__.py at import.
std::vector<std::string> request_formats;

bool is_request_format(const char* format) {
    for (const std::string& f : request_formats) {
        if (f == format) return true;
    }
    return false;
}

// A native-order signed 8-byte integer ('q', or 'l' where long is 8 bytes: the itemsize is checked by callers).
bool is_int64_format(const char* format) {
    char c = *format;
    bool little = true;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    little = false;
#endif
    if (c == '@' || c == '=' || (little && c == '<') || (!little && (c == '>' || c == '!'))) ++format;
    return (format[0] == 'q' || format[0] == 'l') && format[1] == '\0';
}

// Dtype objects already found to have mfusim_request's layout (strong references; a bounded set: arrays made from
// mfusim.REQUEST_DTYPE share its descriptor, and np.tile/concatenate make a few equivalent ones).
constexpr size_t kKnownDescrs = 16;
PyObject* known_request_descrs[kKnownDescrs] = {};

bool is_request_descr(PyArrayObject* array) {
    PyObject* descr = reinterpret_cast<PyObject*>(PyArray_DESCR(array));
    for (PyObject* known : known_request_descrs) {
        if (known == descr) return true;
        if (known == nullptr) break;
    }
    if (PyArray_ITEMSIZE(array) != static_cast<npy_intp>(sizeof(mfusim_request)) ||
        !PyDataType_HASFIELDS(PyArray_DESCR(array))) {
        return false;
    }
    // First sight of this dtype: NumPy's own buffer format of it says whether it is the layout.
    Py_buffer view;
    if (PyObject_GetBuffer(reinterpret_cast<PyObject*>(array), &view, PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        return false;
    }
    const bool ok = view.format != nullptr && is_request_format(view.format);
    PyBuffer_Release(&view);
    if (ok) {
        for (PyObject*& slot : known_request_descrs) {
            if (slot == nullptr) {
                Py_INCREF(descr);
                slot = descr;
                break;
            }
        }
    }
    return ok;
}

inline bool aligned8(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % 8 == 0;
}

// A native-order 8-byte signed integer array (int64, or long long where that is a distinct type number).
bool is_int64_array(PyArrayObject* a) {
    return PyArray_ISINTEGER(a) && PyArray_ISSIGNED(a) && PyArray_ITEMSIZE(a) == 8 && PyArray_ISNOTSWAPPED(a);
}

std::string describe_array(PyArrayObject* a) {
    nb::str dtype = nb::str(nb::handle(reinterpret_cast<PyObject*>(PyArray_DESCR(a))));
    std::string shape;
    for (int d = 0; d < PyArray_NDIM(a); ++d) shape += (d ? ", " : "") + std::to_string(PyArray_DIM(a, d));
    if (PyArray_NDIM(a) == 1) shape += ",";
    return "an array of dtype " + std::string(dtype.c_str()) + " and shape (" + shape + ")";
}

bool is_double_format(const char* format) {
    char c = *format;
    if (c == '@' || c == '=' || c == '<') ++format;
    return format[0] == 'd' && format[1] == '\0';
}

// A Py_buffer released when it goes out of scope.
class Buffer {
  public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() {
        if (held_) PyBuffer_Release(&view_);
    }
    // False (no Python error set) if obj has no buffer interface.
    bool get(PyObject* obj, int flags) {
        if (!PyObject_CheckBuffer(obj)) return false;
        if (PyObject_GetBuffer(obj, &view_, flags) != 0) throw nb::python_error();
        held_ = true;
        return true;
    }
    const Py_buffer& view() const { return view_; }
    const char* format() const { return view_.format ? view_.format : "B"; }
    Py_ssize_t stride(int dim) const { return view_.strides ? view_.strides[dim] : view_.itemsize; }

  private:
    Py_buffer view_{};
    bool held_ = false;
};

// The name of an object's type, for messages. Under the limited API of the abi3 wheel (Python >= 3.12: CMakeLists.txt)
// PyTypeObject is opaque; PyType_GetName gives the type's __name__ there.
std::string type_name(PyObject* o) {
#ifdef Py_LIMITED_API
    nb::object name = nb::steal(PyType_GetName(Py_TYPE(o)));
    if (!name.is_valid()) {
        PyErr_Clear();
        return "?";
    }
    return nb::str(name).c_str();
#else
    return Py_TYPE(o)->tp_name;
#endif
}

// The items of a list or a tuple (what PySequence_Fast returns), borrowed. With the full API the macros read the
// object's array directly; the limited API has no such access, so the abi3 wheel calls the accessors per item.
class FastItems {
  public:
    explicit FastItems(PyObject* seq) {
#ifdef Py_LIMITED_API
        seq_ = seq;
        list_ = PyList_Check(seq) != 0;
        size_ = list_ ? PyList_Size(seq) : PyTuple_Size(seq);
#else
        size_ = PySequence_Fast_GET_SIZE(seq);
        items_ = PySequence_Fast_ITEMS(seq);
#endif
    }
    Py_ssize_t size() const {
        return size_;
    }
    PyObject* operator[](Py_ssize_t i) const {
#ifdef Py_LIMITED_API
        PyObject* item = list_ ? PyList_GetItem(seq_, i) : PyTuple_GetItem(seq_, i);
        if (item == nullptr) throw nb::python_error();  // a list shortened by an item's __index__
        return item;
#else
        return items_[i];
#endif
    }

  private:
    Py_ssize_t size_ = 0;
#ifdef Py_LIMITED_API
    PyObject* seq_ = nullptr;
    bool list_ = false;
#else
    PyObject** items_ = nullptr;
#endif
};

int64_t as_int64(PyObject* value, Py_ssize_t index, const char* what) {
    long long v;
    if (PyLong_CheckExact(value)) {
        v = PyLong_AsLongLong(value);
    } else {
        PyObject* i = PyNumber_Index(value);  // NumPy integers; not floats
        if (i == nullptr) {
            PyErr_Clear();
            throw nb::type_error(
                ("request " + std::to_string(index) + ": " + what + " must be an integer, not " + type_name(value))
                    .c_str());
        }
        v = PyLong_AsLongLong(i);
        Py_DECREF(i);
    }
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw std::overflow_error("request " + std::to_string(index) + ": " + what + " does not fit in 64 bits");
    }
    return static_cast<int64_t>(v);
}

// The requests of one call, as the C function wants them: NumPy memory as it is where the layout allows, else a
// stack buffer (up to kInline requests) or a heap one.
class Requests {
  public:
    static constexpr size_t kInline = 64;

    Requests() = default;
    Requests(const Requests&) = delete;
    Requests& operator=(const Requests&) = delete;

    explicit Requests(nb::handle obj) { read(obj.ptr()); }

    const mfusim_request* data() const { return data_; }
    size_t size() const { return n_; }
    bool copied() const { return copied_; }

  private:
    void read(PyObject* obj) {
        if (PyArray_Check(obj)) {
            read_array(reinterpret_cast<PyArrayObject*>(obj));
        } else if (buffer_.get(obj, PyBUF_RECORDS_RO)) {
            read_buffer();
        } else {
            read_sequence(obj);
        }
    }

    mfusim_request* storage(size_t n) {
        copied_ = true;
        if (n <= kInline) return local_;
        heap_.reset(new mfusim_request[n]);
        return heap_.get();
    }

    // The two array layouts both readers accept, from any strides (NumPy arrays and buffer-protocol objects
    // describe them alike). Records: zero copy when contiguous and aligned, else copied.
    void take_records(const char* base, size_t n, ptrdiff_t stride) {
        n_ = n;
        if ((stride == static_cast<ptrdiff_t>(sizeof(mfusim_request)) || n <= 1) && aligned8(base)) {
            data_ = reinterpret_cast<const mfusim_request*>(base);  // zero copy
            return;
        }
        mfusim_request* out = storage(n);
        for (size_t i = 0; i < n; ++i) std::memcpy(&out[i], base + static_cast<ptrdiff_t>(i) * stride, sizeof *out);
        data_ = out;
    }

    // (n, 2) int64 pairs of (new_tokens, context): copied into records.
    void take_pairs(const char* base, size_t n, ptrdiff_t row_stride, ptrdiff_t column_stride) {
        n_ = n;
        mfusim_request* out = storage(n);
        for (size_t i = 0; i < n; ++i) {
            const char* row = base + static_cast<ptrdiff_t>(i) * row_stride;
            int64_t pair[2];
            std::memcpy(&pair[0], row, 8);
            std::memcpy(&pair[1], row + column_stride, 8);
            out[i] = mfusim_request{pair[0], pair[1], 0, 0};
        }
        data_ = out;
    }

    void read_array(PyArrayObject* a) {
        const char* base = static_cast<const char*>(PyArray_DATA(a));
        // NumPy calls an unaligned-struct dtype aligned at any address: take_records checks the pointer itself.
        if (PyArray_NDIM(a) == 1 && is_request_descr(a)) {
            take_records(base, static_cast<size_t>(PyArray_DIM(a, 0)), PyArray_STRIDE(a, 0));
            return;
        }
        if (PyArray_NDIM(a) == 2 && PyArray_DIM(a, 1) == 2 && is_int64_array(a)) {
            take_pairs(base, static_cast<size_t>(PyArray_DIM(a, 0)), PyArray_STRIDE(a, 0), PyArray_STRIDE(a, 1));
            return;
        }
        throw nb::type_error(("requests: expected a 1-D array of mfusim.REQUEST_DTYPE or an int64 array of shape "
                              "(n, 2); got " +
                              describe_array(a))
                                 .c_str());
    }

    void read_buffer() {
        const Py_buffer& v = buffer_.view();
        const char* format = buffer_.format();
        const char* base = static_cast<const char*>(v.buf);
        if (v.ndim == 1 && v.itemsize == static_cast<Py_ssize_t>(sizeof(mfusim_request)) && is_request_format(format)) {
            take_records(base, static_cast<size_t>(v.shape[0]), buffer_.stride(0));
            return;
        }
        if (v.ndim == 2 && v.shape[1] == 2 && v.itemsize == 8 && is_int64_format(format)) {
            take_pairs(base, static_cast<size_t>(v.shape[0]), buffer_.stride(0), buffer_.stride(1));
            return;
        }
        std::string shape;
        for (int d = 0; d < v.ndim; ++d) shape += (d ? ", " : "") + std::to_string(v.shape[d]);
        throw nb::type_error(("requests: expected a 1-D array of mfusim.REQUEST_DTYPE or an int64 array of shape "
                              "(n, 2); got an array of format '" +
                              std::string(format) + "', shape (" + shape + "), itemsize " + std::to_string(v.itemsize))
                                 .c_str());
    }

    void read_sequence(PyObject* obj) {
        PyObject* seq = PySequence_Fast(obj,
                                        "requests: expected a sequence of (new_tokens, context[, flags]) "
                                        "pairs or a NumPy array");
        if (seq == nullptr) throw nb::python_error();
        nb::object owner = nb::steal(seq);
        const FastItems items(seq);
        const Py_ssize_t n = items.size();
        n_ = static_cast<size_t>(n);
        mfusim_request* out = storage(n_);
        for (Py_ssize_t i = 0; i < n; ++i) read_one(items[i], i, out[i]);
        data_ = out;
    }

    static void read_one(PyObject* item, Py_ssize_t index, mfusim_request& out) {
        PyObject* fields = item;
        nb::object owner;
        if (!PyTuple_Check(item) && !PyList_Check(item)) {
            fields = PySequence_Fast(item, "");
            if (fields == nullptr) {
                PyErr_Clear();
                throw nb::type_error(("request " + std::to_string(index) +
                                      ": expected a (new_tokens, context[, flags]) tuple, not " + type_name(item))
                                         .c_str());
            }
            owner = nb::steal(fields);
        }
        const FastItems f(fields);
        const Py_ssize_t k = f.size();
        if (k != 2 && k != 3) {
            throw nb::value_error(("request " + std::to_string(index) +
                                   ": expected (new_tokens, context[, flags]), got " + std::to_string(k) + " values")
                                      .c_str());
        }
        out.new_tokens = as_int64(f[0], index, "new_tokens");
        out.context = as_int64(f[1], index, "context");
        int64_t flags = k == 3 ? as_int64(f[2], index, "flags") : 0;
        if (flags < 0 || flags > UINT32_MAX) {
            throw nb::value_error(("request " + std::to_string(index) + ": flags out of range").c_str());
        }
        out.flags = static_cast<uint32_t>(flags);
        out.reserved = 0;
    }

    Buffer buffer_;
    const mfusim_request* data_ = nullptr;
    size_t n_ = 0;
    bool copied_ = false;
    std::unique_ptr<mfusim_request[]> heap_;
    mfusim_request local_[kInline];
};

// Step sizes of a batch call: an int64 array as it is when contiguous, else copied.
class Sizes {
  public:
    explicit Sizes(nb::handle obj) {
        if (PyArray_Check(obj.ptr())) {
            PyArrayObject* a = reinterpret_cast<PyArrayObject*>(obj.ptr());
            if (PyArray_NDIM(a) != 1 || !is_int64_array(a)) {
                throw nb::type_error(("sizes: expected a 1-D int64 array, got " + describe_array(a)).c_str());
            }
            n_ = static_cast<size_t>(PyArray_DIM(a, 0));
            const char* base = static_cast<const char*>(PyArray_DATA(a));
            const npy_intp stride = PyArray_STRIDE(a, 0);
            if ((stride == 8 || n_ <= 1) && aligned8(base)) {
                data_ = reinterpret_cast<const int64_t*>(base);
                return;
            }
            copy_.resize(n_);
            for (size_t i = 0; i < n_; ++i) std::memcpy(&copy_[i], base + static_cast<npy_intp>(i) * stride, 8);
            data_ = copy_.data();
            return;
        }
        if (buffer_.get(obj.ptr(), PyBUF_RECORDS_RO)) {
            const Py_buffer& v = buffer_.view();
            if (v.ndim != 1 || v.itemsize != 8 || !is_int64_format(buffer_.format())) {
                throw nb::type_error(("sizes: expected a 1-D int64 array, got format '" +
                                      std::string(buffer_.format()) + "' with " + std::to_string(v.ndim) +
                                      " dimension(s)")
                                         .c_str());
            }
            n_ = static_cast<size_t>(v.shape[0]);
            const Py_ssize_t stride = buffer_.stride(0);
            if ((stride == 8 || n_ <= 1) && aligned8(v.buf)) {
                data_ = static_cast<const int64_t*>(v.buf);
                return;
            }
            copy_.resize(n_);
            for (size_t i = 0; i < n_; ++i) {
                std::memcpy(&copy_[i], static_cast<const char*>(v.buf) + static_cast<Py_ssize_t>(i) * stride, 8);
            }
            data_ = copy_.data();
            return;
        }
        PyObject* seq = PySequence_Fast(obj.ptr(), "sizes: expected a sequence of integers or an int64 array");
        if (seq == nullptr) throw nb::python_error();
        nb::object owner = nb::steal(seq);
        const FastItems items(seq);
        n_ = static_cast<size_t>(items.size());
        copy_.resize(n_);
        for (size_t i = 0; i < n_; ++i) copy_[i] = as_int64(items[i], static_cast<Py_ssize_t>(i), "step size");
        data_ = copy_.data();
    }
    const int64_t* data() const { return data_; }
    size_t size() const { return n_; }

  private:
    Buffer buffer_;
    const int64_t* data_ = nullptr;
    size_t n_ = 0;
    std::vector<int64_t> copy_;
};

// ---- Simulation results -----------------------------------------------------------------------------------

static_assert(sizeof(mfusim_simulated_request) == 80, "mfusim_simulated_request is 80 bytes (mfusim.h)");
static_assert(sizeof(mfusim_simulated_step) == 40, "mfusim_simulated_step is 40 bytes (mfusim.h)");
static_assert(sizeof(mfusim_trace_request) == 40, "mfusim_trace_request is 40 bytes (mfusim.h)");

nb::dict latency(const mfusim_latency_summary& l) {
    nb::dict d;
    d["mean"] = l.mean;
    d["median"] = l.median;
    d["std"] = l.std;
    d["p90"] = l.p90;
    d["p95"] = l.p95;
    d["p99"] = l.p99;
    d["min"] = l.min;
    d["max"] = l.max;
    return d;
}

// An owned, immutable mfusim_simulation_result. Its request and step arrays are handed to NumPy as read-only bytes
// that keep this object alive (no copy); mfusim/__init__.py views them with the matching dtypes.
class SimulationResult {
  public:
    explicit SimulationResult(mfusim_simulation_result* p) : p_(p) {}
    SimulationResult(const SimulationResult&) = delete;
    SimulationResult& operator=(const SimulationResult&) = delete;
    ~SimulationResult() { mfusim_simulation_result_free(p_); }

    nb::dict summary() const {
        mfusim_simulation_summary s;
        mfusim_error error;
        check(mfusim_simulation_summary_init(&s, sizeof s, &error), error);
        check(mfusim_simulation_result_summary(p_, &s, &error), error);
        nb::dict d;
        d["completed"] = s.completed;
        d["total_input_tokens"] = s.total_input_tokens;
        d["total_output_tokens"] = s.total_output_tokens;
        d["duration_s"] = s.duration_s;
        d["request_throughput"] = s.request_throughput;
        d["request_goodput"] = s.request_goodput;
        d["output_throughput"] = s.output_throughput;
        d["total_token_throughput"] = s.total_token_throughput;
        d["steps"] = s.steps;
        d["preemptions"] = s.preemptions;
        d["prefix_hit_tokens"] = s.prefix_hit_tokens;
        d["mean_batch_tokens"] = s.mean_batch_tokens;
        d["mean_running"] = s.mean_running;
        d["ttft_ms"] = latency(s.ttft_ms);
        d["tpot_ms"] = latency(s.tpot_ms);
        d["itl_ms"] = latency(s.itl_ms);
        d["e2el_ms"] = latency(s.e2el_ms);
        d["queue_ms"] = latency(s.queue_ms);
        return d;
    }

    using Bytes = nb::ndarray<nb::numpy, const uint8_t, nb::ndim<1>>;
    // The requests' bytes (count x 80), borrowed from this object; None when there are none.
    nb::object requests_bytes() const {
        size_t n = 0;
        const mfusim_simulated_request* r = mfusim_simulation_result_requests(p_, &n);
        return bytes(r, n * sizeof *r);
    }
    nb::object timeline_bytes() const {
        size_t n = 0;
        const mfusim_simulated_step* t = mfusim_simulation_result_timeline(p_, &n);
        return bytes(t, n * sizeof *t);
    }

    double percentile(int32_t metric, double p) const {
        double out = 0;
        mfusim_error error;
        check(mfusim_simulation_result_percentile(p_, metric, p, &out, &error), error);
        return out;
    }

  private:
    nb::object bytes(const void* data, size_t size) const {
        if (data == nullptr || size == 0) return nb::none();
        nb::object self = nb::find(this);
        return nb::cast(Bytes(data, {size}, self));
    }

    mfusim_simulation_result* p_;
};

template <class T>
void take(const nb::dict& params, const char* key, T& field) {
    if (params.contains(key)) field = nb::cast<T>(params[key]);
}

// ---- The estimator ------------------------------------------------------------------------------------------

class Estimator {
  public:
    Estimator(const std::string& model, const std::string& gpu, const std::optional<std::string>& bench_data,
              int32_t mode, int32_t tp, const std::optional<std::string>& engine,
              const std::optional<std::string>& quant, int32_t ep, int32_t attention_dp, bool fp8_kv, bool fp8_gemm,
              std::optional<int32_t> world_size, std::optional<int32_t> num_nodes, bool deepep, bool two_batch_overlap,
              std::optional<double> sm_ratio, const std::optional<std::string>& calibration,
              const std::optional<std::string>& speculative, int32_t num_speculative_tokens, double acceptance_rate,
              double mean_accepted_length, int64_t images_per_request, int64_t image_width, int64_t image_height,
              double audio_seconds_per_request, double moe_routing_alpha,
              const std::optional<std::string>& draft_model) {
        mfusim_options o;
        mfusim_error error;
        check(mfusim_options_init(&o, sizeof o, &error), error);
        o.model = c_arg(model, "model");
        o.gpu = c_arg(gpu, "gpu");
        o.bench_data_dir = c_arg(bench_data, "bench_data");
        o.mode = mode;
        o.tensor_parallel = tp;
        if (world_size) o.world_size = *world_size;
        if (num_nodes) o.num_nodes = *num_nodes;
        o.fp8_gemm = fp8_gemm ? 1 : 0;
        o.fp8_kv = fp8_kv ? 1 : 0;
        o.deepep = deepep ? 1 : 0;
        o.two_batch_overlap = two_batch_overlap ? 1 : 0;
        if (sm_ratio) o.sm_ratio = *sm_ratio;
        o.engine = c_arg(engine, "engine");
        o.quant = c_arg(quant, "quant");
        o.expert_parallel = ep;
        o.attention_data_parallel = attention_dp;
        o.calibration = c_arg(calibration, "calibration");
        o.speculative = c_arg(speculative, "speculative");
        o.num_speculative_tokens = num_speculative_tokens;
        o.acceptance_rate = acceptance_rate;
        o.mean_accepted_length = mean_accepted_length;
        o.images_per_request = images_per_request;
        o.image_width = image_width;
        o.image_height = image_height;
        o.audio_seconds_per_request = audio_seconds_per_request;
        o.moe_routing_alpha = moe_routing_alpha;
        o.draft_model = c_arg(draft_model, "draft_model");
        mfusim_estimator* handle = nullptr;
        mfusim_status status;
        {
            nb::gil_scoped_release unlocked;  // reads files
            status = mfusim_estimator_create(&o, &handle, &error);
        }
        check(status, error);
        handle_ = handle;
    }

    Estimator(const Estimator&) = delete;
    Estimator& operator=(const Estimator&) = delete;
    ~Estimator() { close(); }

    void close() {
        if (handle_ == nullptr) return;
        mfusim_estimator* h = handle_;
        handle_ = nullptr;
        unpin(h);
    }

    bool closed() const { return handle_ == nullptr; }

    // The handle for a call that keeps the GIL (close() cannot run meanwhile).
    const mfusim_estimator* handle() const {
        if (handle_ == nullptr) raise_status(MFUSIM_ERR_INVALID_ARGUMENT, "the estimator is closed");
        return handle_;
    }

    // A call that releases the GIL holds a Pin: the handle lives until the last pin is gone.
    class Pin {
      public:
        explicit Pin(Estimator& e) : e_(e), h_(const_cast<mfusim_estimator*>(e.handle())) {
            e_.uses_.fetch_add(1, std::memory_order_relaxed);
        }
        Pin(const Pin&) = delete;
        Pin& operator=(const Pin&) = delete;
        ~Pin() { e_.unpin(h_); }
        const mfusim_estimator* get() const { return h_; }

      private:
        Estimator& e_;
        mfusim_estimator* h_;
    };

    double step_time(nb::handle requests) const {
        const Requests r(requests);
        double us = 0;
        mfusim_error error;
        check(mfusim_step_time(handle(), r.data(), r.size(), &us, &error), error);
        return us;
    }

    nb::object step_time_batch(nb::handle requests, nb::handle sizes, nb::handle out) {
        const Requests r(requests);
        const Sizes s(sizes);
        const size_t n_steps = s.size();
        Buffer out_buffer;
        double* out_data = nullptr;
        std::unique_ptr<double[]> fresh;
        if (PyArray_Check(out.ptr())) {
            PyArrayObject* a = reinterpret_cast<PyArrayObject*>(out.ptr());
            if (PyArray_NDIM(a) != 1 || PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(a) ||
                !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a) || !aligned8(PyArray_DATA(a))) {
                throw nb::type_error(
                    ("out: expected a writable, aligned, C-contiguous 1-D float64 array, got " + describe_array(a))
                        .c_str());
            }
            if (static_cast<size_t>(PyArray_DIM(a, 0)) != n_steps) {
                throw nb::value_error(("out has " + std::to_string(PyArray_DIM(a, 0)) + " slots for " +
                                       std::to_string(n_steps) + " steps")
                                          .c_str());
            }
            out_data = static_cast<double*>(PyArray_DATA(a));
        } else if (!out.is_none()) {
            if (!out_buffer.get(out.ptr(), PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)) {
                throw nb::type_error("out: expected a writable float64 NumPy array");
            }
            const Py_buffer& v = out_buffer.view();
            if (v.ndim != 1 || v.itemsize != 8 || !is_double_format(out_buffer.format())) {
                throw nb::type_error("out: expected a 1-D, C-contiguous float64 array");
            }
            if (static_cast<size_t>(v.shape[0]) != n_steps) {
                throw nb::value_error(
                    ("out has " + std::to_string(v.shape[0]) + " slots for " + std::to_string(n_steps) + " steps")
                        .c_str());
            }
            if (!aligned8(v.buf)) throw nb::type_error("out: expected an 8-byte aligned float64 array");
            out_data = static_cast<double*>(v.buf);
        } else {
            fresh.reset(new double[n_steps > 0 ? n_steps : 1]);
            out_data = fresh.get();
        }
        mfusim_error error;
        mfusim_status status;
        {
            const Pin pin(*this);
            nb::gil_scoped_release unlocked;
            status = mfusim_step_time_batch(pin.get(), r.data(), r.size(), s.data(), n_steps, out_data, &error);
        }
        check(status, error);
        if (!out.is_none()) return nb::borrow(out);
        double* data = fresh.release();
        nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
        return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, {n_steps}, owner));
    }

    // (total_us, bound, [(name, time_us, flops, bytes, efficiency, bound, source, table, distance), ...])
    nb::tuple step_detail(nb::handle requests) const {
        const Requests r(requests);
        mfusim_step_result result;
        mfusim_error error;
        check(mfusim_step_result_init(&result, sizeof result, &error), error);
        check(mfusim_step_detail(handle(), r.data(), r.size(), &result, &error), error);
        const int32_t n =
            result.n_ops < 0 ? 0 : (result.n_ops > MFUSIM_OP_CAPACITY ? MFUSIM_OP_CAPACITY : result.n_ops);
        nb::list ops;
        for (int32_t i = 0; i < n; ++i) {
            const mfusim_op_detail& op = result.ops[i];
            ops.append(nb::make_tuple(mfusim_op_name(i), op.time_us, op.flops, op.bytes, op.efficiency,
                                      mfusim_bound_name(op.bound), mfusim_source_name(op.source), field_text(op.table),
                                      op.distance));
        }
        return nb::make_tuple(result.total_us, mfusim_bound_name(result.bound), ops);
    }

    // ([(name, value), ...], warnings, soft_errors)
    nb::tuple estimate(std::optional<int64_t> input_len, std::optional<int64_t> output_len,
                       std::optional<int64_t> max_prefill_tokens, std::optional<int64_t> decode_batch,
                       std::optional<double> target_tgs, std::optional<double> target_tpot_ms, int32_t phases) {
        mfusim_scenario sc;
        mfusim_error error;
        check(mfusim_scenario_init(&sc, sizeof sc, &error), error);
        if (input_len) sc.input_len = *input_len;
        if (output_len) sc.output_len = *output_len;
        if (max_prefill_tokens) sc.max_prefill_tokens = *max_prefill_tokens;
        if (decode_batch) sc.decode_batch = *decode_batch;
        if (target_tgs) sc.target_tgs = *target_tgs;
        if (target_tpot_ms) sc.target_tpot_ms = *target_tpot_ms;
        sc.phases = phases;
        mfusim_report* report = nullptr;
        mfusim_status status;
        {
            const Pin pin(*this);
            nb::gil_scoped_release unlocked;
            status = mfusim_estimate(pin.get(), &sc, &report, &error);
        }
        check(status, error);
        const std::unique_ptr<mfusim_report, void (*)(mfusim_report*)> owned(report, mfusim_report_free);
        nb::list values;
        const size_t n = mfusim_report_count(report);
        for (size_t i = 0; i < n; ++i) {
            values.append(nb::make_tuple(text(mfusim_report_name(report, i)), mfusim_report_value_at(report, i)));
        }
        return nb::make_tuple(values, text(mfusim_report_warnings(report)), text(mfusim_report_soft_errors(report)));
    }

    nb::dict serve(int64_t input_len, int64_t output_len, int64_t concurrency, int64_t max_batched_tokens,
                   int64_t max_seqs, double gpu_memory_utilization, double requests_per_client) {
        mfusim_serving w;
        mfusim_serving_result r;
        mfusim_error error;
        check(mfusim_serving_init(&w, sizeof w, &error), error);
        check(mfusim_serving_result_init(&r, sizeof r, &error), error);
        w.input_len = input_len;
        w.output_len = output_len;
        w.concurrency = concurrency;
        w.max_batched_tokens = max_batched_tokens;
        w.max_seqs = max_seqs;
        w.gpu_memory_utilization = gpu_memory_utilization;
        w.requests_per_client = requests_per_client;
        mfusim_status status;
        {
            const Pin pin(*this);
            nb::gil_scoped_release unlocked;
            status = mfusim_serving_estimate(pin.get(), &w, &r, &error);
        }
        check(status, error);
        nb::dict d;
        d["ttft_ms"] = r.ttft_ms;
        d["tpot_ms"] = r.tpot_ms;
        d["e2e_ms"] = r.e2e_ms;
        d["output_throughput_tok_s_gpu"] = r.output_throughput_tok_s_gpu;
        d["request_throughput_req_s"] = r.request_throughput_req_s;
        d["decode_step_ms"] = r.decode_step_ms;
        d["mixed_step_ms"] = r.mixed_step_ms;
        d["mixed_step_fraction"] = r.mixed_step_fraction;
        d["decode_batch"] = r.decode_batch;
        d["prefill_tokens_per_mixed_step"] = r.prefill_tokens_per_mixed_step;
        d["prefill_steps_per_request"] = r.prefill_steps_per_request;
        d["queue_ms"] = r.queue_ms;
        d["running_requests"] = r.running_requests;
        d["kv_capacity_tokens"] = r.kv_capacity_tokens;
        d["limited_by"] = static_cast<int32_t>(r.limited_by);
        return d;
    }

    // mfusim_disagg_estimate with this estimator as the prefill pool and `decode` as the decode pool (the same
    // object may be both); both pinned while the library computes, the GIL released.
    nb::dict disagg(Estimator& decode, int64_t input_len, int64_t output_len, int64_t concurrency,
                    int64_t prefill_workers, int64_t decode_workers, int64_t prefill_batch, int64_t decode_batch,
                    int64_t max_batched_tokens, double gpu_memory_utilization) {
        mfusim_disagg_serving w;
        mfusim_disagg_result r;
        mfusim_error error;
        check(mfusim_disagg_serving_init(&w, sizeof w, &error), error);
        check(mfusim_disagg_result_init(&r, sizeof r, &error), error);
        w.input_len = input_len;
        w.output_len = output_len;
        w.concurrency = concurrency;
        w.prefill_workers = prefill_workers;
        w.decode_workers = decode_workers;
        w.prefill_batch = prefill_batch;
        w.decode_batch = decode_batch;
        w.max_batched_tokens = max_batched_tokens;
        w.gpu_memory_utilization = gpu_memory_utilization;
        mfusim_status status;
        {
            const Pin prefill_pin(*this), decode_pin(decode);
            nb::gil_scoped_release unlocked;
            status = mfusim_disagg_estimate(prefill_pin.get(), decode_pin.get(), &w, &r, &error);
        }
        check(status, error);
        nb::dict d;
        d["ttft_ms"] = r.ttft_ms;
        d["tpot_ms"] = r.tpot_ms;
        d["e2e_ms"] = r.e2e_ms;
        d["output_throughput_tok_s_gpu"] = r.output_throughput_tok_s_gpu;
        d["request_throughput_req_s"] = r.request_throughput_req_s;
        d["admission_ms"] = r.admission_ms;
        d["prefill_queue_ms"] = r.prefill_queue_ms;
        d["prefill_ms"] = r.prefill_ms;
        d["transfer_ms"] = r.transfer_ms;
        d["decode_wait_ms"] = r.decode_wait_ms;
        d["prefill_batch_ms"] = r.prefill_batch_ms;
        d["prompts_per_batch"] = r.prompts_per_batch;
        d["prefill_utilization"] = r.prefill_utilization;
        d["decode_step_ms"] = r.decode_step_ms;
        d["decode_batch"] = r.decode_batch;
        d["decode_slots"] = r.decode_slots;
        d["kv_transfer_bytes"] = r.kv_transfer_bytes;
        d["transfer_over_network"] = r.transfer_over_network != 0;
        d["prefill_gpus"] = r.prefill_gpus;
        d["decode_gpus"] = r.decode_gpus;
        return d;
    }

    // mfusim_simulate: `params` holds mfusim_simulation's fields by name (mfusim.simulate checks and fills them);
    // the trace, when given, is `trace_count` mfusim_trace_request at `trace_address`, kept alive by the caller.
    std::unique_ptr<SimulationResult> simulate(const nb::dict& params, uintptr_t trace_address, size_t trace_count) {
        mfusim_simulation s;
        mfusim_error error;
        check(mfusim_simulation_init(&s, sizeof s, &error), error);
        take(params, "num_prompts", s.num_prompts);
        take(params, "warmup", s.warmup);
        take(params, "request_rate", s.request_rate);
        take(params, "burstiness", s.burstiness);
        take(params, "max_concurrency", s.max_concurrency);
        take(params, "input_distribution", s.input_distribution);
        take(params, "output_distribution", s.output_distribution);
        take(params, "input_len", s.input_len);
        take(params, "input_spread", s.input_spread);
        take(params, "output_len", s.output_len);
        take(params, "output_spread", s.output_spread);
        take(params, "num_prefix_prompts", s.num_prefix_prompts);
        take(params, "prefix_len", s.prefix_len);
        take(params, "seed", s.seed);
        take(params, "constant_rate", s.constant_rate);
        take(params, "scheduler", s.scheduler);
        take(params, "max_batched_tokens", s.max_batched_tokens);
        take(params, "max_seqs", s.max_seqs);
        take(params, "block_tokens", s.block_tokens);
        take(params, "long_prefill_token_threshold", s.long_prefill_token_threshold);
        take(params, "gpu_memory_utilization", s.gpu_memory_utilization);
        take(params, "disable_chunked_prefill", s.disable_chunked_prefill);
        take(params, "disable_prefix_caching", s.disable_prefix_caching);
        take(params, "slo_ttft_ms", s.slo_ttft_ms);
        take(params, "slo_tpot_ms", s.slo_tpot_ms);
        take(params, "slo_e2el_ms", s.slo_e2el_ms);
        take(params, "record_timeline", s.record_timeline);
        take(params, "ramp_up_s", s.ramp_up_s);
        s.trace = reinterpret_cast<const mfusim_trace_request*>(trace_address);
        s.trace_count = trace_count;
        mfusim_simulation_result* result = nullptr;
        mfusim_status status;
        {
            const Pin pin(*this);
            nb::gil_scoped_release unlocked;  // a run takes milliseconds to seconds
            status = mfusim_simulate(pin.get(), &s, &result, &error);
        }
        check(status, error);
        return std::make_unique<SimulationResult>(result);
    }

    nb::dict engine_terms() const {
        mfusim_engine_terms t;
        mfusim_error error;
        check(mfusim_engine_terms_init(&t, sizeof t, &error), error);
        check(mfusim_estimator_engine_terms(handle(), &t, &error), error);
        nb::dict d;
        d["name"] = field_text(t.name);
        d["step_us"] = t.step_us;
        d["request_us"] = t.request_us;
        d["layer_us"] = t.layer_us;
        d["eager_layer_us"] = t.eager_layer_us;
        d["tp_sync_us"] = t.tp_sync_us;
        d["admission_us"] = t.admission_us;
        d["input_token_us"] = t.input_token_us;
        d["output_token_us"] = t.output_token_us;
        d["cuda_graph_max_batch"] = t.cuda_graph_max_batch;
        d["max_batched_tokens"] = t.max_batched_tokens;
        d["max_seqs"] = t.max_seqs;
        d["gpu_memory_utilization"] = t.gpu_memory_utilization;
        d["mixed_batches"] = t.mixed_batches != 0;
        return d;
    }

    nb::str load_warnings() const { return text(mfusim_estimator_load_warnings(handle())); }

  private:
    void unpin(mfusim_estimator* h) {
        if (uses_.fetch_sub(1, std::memory_order_acq_rel) == 1) mfusim_estimator_free(h);
    }

    mfusim_estimator* handle_ = nullptr;
    std::atomic<long> uses_{1};  // the owner's reference plus one per pinned call in flight
};

nb::list catalogue(size_t (*count)(), const char* (*name)(size_t)) {
    nb::list out;
    const size_t n = count();
    for (size_t i = 0; i < n; ++i) {
        const char* s = name(i);
        if (s != nullptr) out.append(s);
    }
    return out;
}

// ---- Calibration -------------------------------------------------------------------------------------------

// An owned mfusim_calibration, freed when it goes out of scope.
struct CalibrationHandle {
    mfusim_calibration* p = nullptr;
    ~CalibrationHandle() { mfusim_calibration_free(p); }
};

// (document, report, improved): the strings copied, the handle freed. The GIL is released while the library
// reads and fits (seconds).
nb::tuple calibration_result(mfusim_status status, const mfusim_error& error, CalibrationHandle& c) {
    check(status, error);
    return nb::make_tuple(text(mfusim_calibration_document(c.p)), text(mfusim_calibration_report(c.p)),
                          mfusim_calibration_improved(c.p) != 0);
}

nb::tuple calibrate_steps(const std::string& steps_path, const std::optional<std::string>& model,
                          const std::optional<std::string>& gpu, int32_t tp, const std::optional<std::string>& engine,
                          const std::optional<std::string>& bench_data, int32_t folds) {
    mfusim_options o;
    mfusim_error error;
    check(mfusim_options_init(&o, sizeof o, &error), error);
    o.model = c_arg(model, "model");
    o.gpu = c_arg(gpu, "gpu");
    o.tensor_parallel = tp;
    o.engine = c_arg(engine, "engine");
    o.bench_data_dir = c_arg(bench_data, "bench_data");
    const char* path = c_arg(steps_path, "steps_path");
    CalibrationHandle c;
    mfusim_status status;
    {
        nb::gil_scoped_release unlocked;
        status = mfusim_calibrate_steps(&o, path, folds, &c.p, &error);
    }
    return calibration_result(status, error, c);
}

nb::tuple calibrate_kernels(const std::string& kernels_dir, const std::string& gpu,
                            const std::optional<std::string>& bench_data) {
    mfusim_options o;
    mfusim_error error;
    check(mfusim_options_init(&o, sizeof o, &error), error);
    o.gpu = c_arg(gpu, "gpu");
    o.bench_data_dir = c_arg(bench_data, "bench_data");
    const char* dir = c_arg(kernels_dir, "kernels_dir");
    CalibrationHandle c;
    mfusim_status status;
    {
        nb::gil_scoped_release unlocked;
        status = mfusim_calibrate_kernels(&o, dir, &c.p, &error);
    }
    return calibration_result(status, error, c);
}

// mfusim_plan: (rows, per-GPU summaries, warnings), each row and summary a dict; see mfusim.plan.
nb::tuple plan(const std::string& model, const std::optional<std::string>& engine,
               const std::optional<std::string>& quant, const std::optional<std::string>& bench_data, bool fp8_kv,
               bool fp8_gemm, const std::vector<std::string>& gpus, const std::vector<int64_t>& tp_list,
               int64_t input_len, int64_t output_len, int64_t max_batched_tokens, int64_t max_seqs,
               double gpu_memory_utilization, double requests_per_client, double max_ttft_ms, double max_tpot_ms,
               int64_t max_concurrency, int64_t gpu_budget, bool simulate, bool disagg,
               const std::vector<int64_t>& decode_batches, bool least_loaded) {
    mfusim_options o;
    mfusim_serving s;
    mfusim_plan_request r;
    mfusim_error error;
    check(mfusim_options_init(&o, sizeof o, &error), error);
    check(mfusim_serving_init(&s, sizeof s, &error), error);
    check(mfusim_plan_request_init(&r, sizeof r, &error), error);
    o.model = c_arg(model, "model");
    o.engine = c_arg(engine, "engine");
    o.quant = c_arg(quant, "quant");
    o.bench_data_dir = c_arg(bench_data, "bench_data");
    o.fp8_kv = fp8_kv ? 1 : 0;
    o.fp8_gemm = fp8_gemm ? 1 : 0;
    s.input_len = input_len;
    s.output_len = output_len;
    s.max_batched_tokens = max_batched_tokens;
    s.max_seqs = max_seqs;
    s.gpu_memory_utilization = gpu_memory_utilization;
    s.requests_per_client = requests_per_client;
    std::vector<const char*> gpu_names;
    for (const std::string& g : gpus) gpu_names.push_back(c_arg(g, "gpus"));
    r.gpus = gpu_names.empty() ? nullptr : gpu_names.data();
    r.gpu_count = gpu_names.size();
    r.tp_list = tp_list.empty() ? nullptr : tp_list.data();
    r.tp_count = tp_list.size();
    r.max_ttft_ms = max_ttft_ms;
    r.max_tpot_ms = max_tpot_ms;
    r.max_concurrency = max_concurrency;
    r.gpu_budget = gpu_budget;
    r.simulate = simulate ? 1 : 0;
    r.disagg = disagg ? 1 : 0;
    r.decode_batches = decode_batches.empty() ? nullptr : decode_batches.data();
    r.decode_batch_count = decode_batches.size();
    r.least_loaded_router = least_loaded ? 1 : 0;
    mfusim_plan_result* result = nullptr;
    mfusim_status status;
    {
        nb::gil_scoped_release unlocked;  // builds estimators and searches: seconds
        status = mfusim_plan(&o, &s, &r, &result, &error);
    }
    check(status, error);
    std::unique_ptr<mfusim_plan_result, void (*)(mfusim_plan_result*)> owned(result, mfusim_plan_result_free);
    size_t n_rows = 0, n_gpus = 0;
    const mfusim_plan_row* rows = mfusim_plan_result_rows(result, &n_rows);
    const mfusim_plan_gpu* per_gpu = mfusim_plan_result_gpus(result, &n_gpus);
    nb::list row_list, gpu_list;
    for (size_t i = 0; i < n_rows; ++i) {
        const mfusim_plan_row& w = rows[i];
        nb::dict d;
        d["gpu"] = text(mfusim_plan_result_gpu_name(result, static_cast<size_t>(w.gpu_index)));
        d["mode"] = w.disaggregated ? "disaggregated" : "aggregated";
        d["tp"] = w.tp;
        d["ep"] = w.ep;
        d["gpus"] = w.gpus;
        d["concurrency"] = w.concurrency;
        d["prefill_workers"] = w.prefill_workers;
        d["prefill_tp"] = w.prefill_tp;
        d["prefill_ep"] = w.prefill_ep;
        d["prefill_attention_dp"] = w.prefill_attention_dp;
        d["decode_workers"] = w.decode_workers;
        d["decode_tp"] = w.decode_tp;
        d["decode_ep"] = w.decode_ep;
        d["decode_attention_dp"] = w.decode_attention_dp;
        d["decode_batch"] = w.decode_batch;
        d["ttft_ms"] = w.ttft_ms;
        d["tpot_ms"] = w.tpot_ms;
        d["output_tok_s_gpu"] = w.output_tok_s_gpu;
        d["output_tok_s_user"] = w.output_tok_s_user;
        d["meets_limits"] = w.meets_limits != 0;
        d["best"] = w.best != 0;
        row_list.append(d);
    }
    for (size_t g = 0; g < n_gpus; ++g) {
        nb::dict d;
        d["gpu"] = text(mfusim_plan_result_gpu_name(result, g));
        d["evaluated"] = per_gpu[g].evaluated;
        d["meeting_limits"] = per_gpu[g].meeting_limits;
        d["best_row"] = per_gpu[g].best_row;
        d["skipped_not_fitting"] = per_gpu[g].skipped_not_fitting;
        d["skipped_invalid"] = per_gpu[g].skipped_invalid;
        d["last_skip"] = text(mfusim_plan_result_last_skip(result, g));
        gpu_list.append(d);
    }
    return nb::make_tuple(row_list, gpu_list, text(mfusim_plan_result_warnings(result)));
}

// mfusim_sweep: (rows, warnings), each row a dict of the C row with its detail and error; see mfusim.param_sweep.
// Optional numbers left None keep the library's defaults (mfusim_serving_init, mfusim_sweep_request_init).
nb::tuple param_sweep(const std::optional<std::string>& model, const std::optional<std::string>& gpu, int32_t tp,
                      int32_t mode, const std::optional<std::string>& engine, const std::optional<std::string>& quant,
                      const std::optional<std::string>& bench_data, bool fp8_kv, bool fp8_gemm, bool serving,
                      bool simulate, int32_t vary, const std::vector<std::string>& vary_values, int32_t series,
                      const std::vector<std::string>& series_values, std::optional<int64_t> input_len,
                      std::optional<int64_t> output_len, std::optional<int64_t> concurrency, int64_t max_batched_tokens,
                      int64_t max_seqs, double gpu_memory_utilization, double requests_per_client,
                      std::optional<int64_t> decode_batch, std::optional<int64_t> context,
                      std::optional<int64_t> chunk) {
    mfusim_options o;
    mfusim_serving s;
    mfusim_sweep_request r;
    mfusim_error error;
    check(mfusim_options_init(&o, sizeof o, &error), error);
    check(mfusim_serving_init(&s, sizeof s, &error), error);
    check(mfusim_sweep_request_init(&r, sizeof r, &error), error);
    o.model = c_arg(model, "model");
    o.gpu = c_arg(gpu, "gpu");
    o.tensor_parallel = tp;
    o.mode = mode;
    o.engine = c_arg(engine, "engine");
    o.quant = c_arg(quant, "quant");
    o.bench_data_dir = c_arg(bench_data, "bench_data");
    o.fp8_kv = fp8_kv ? 1 : 0;
    o.fp8_gemm = fp8_gemm ? 1 : 0;
    if (input_len) s.input_len = *input_len;
    if (output_len) s.output_len = *output_len;
    if (concurrency) s.concurrency = *concurrency;
    s.max_batched_tokens = max_batched_tokens;
    s.max_seqs = max_seqs;
    s.gpu_memory_utilization = gpu_memory_utilization;
    s.requests_per_client = requests_per_client;
    std::vector<const char*> xs, ss;
    for (const std::string& v : vary_values) xs.push_back(c_arg(v, "values"));
    for (const std::string& v : series_values) ss.push_back(c_arg(v, "series_values"));
    r.serving = serving ? 1 : 0;
    r.simulate = simulate ? 1 : 0;
    r.vary = vary;
    r.vary_values = xs.empty() ? nullptr : xs.data();
    r.vary_count = xs.size();
    r.series = series;
    r.series_values = ss.empty() ? nullptr : ss.data();
    r.series_count = ss.size();
    if (decode_batch) r.decode_batch = *decode_batch;
    if (context) r.context = *context;
    if (chunk) r.chunk = *chunk;
    mfusim_sweep_result* result = nullptr;
    mfusim_status status;
    {
        nb::gil_scoped_release unlocked;  // builds estimators: not a hot path
        status = mfusim_sweep(&o, &s, &r, &result, &error);
    }
    check(status, error);
    std::unique_ptr<mfusim_sweep_result, void (*)(mfusim_sweep_result*)> owned(result, mfusim_sweep_result_free);
    size_t n = 0;
    const mfusim_sweep_row* rows = mfusim_sweep_result_rows(result, &n);
    nb::list row_list;
    for (size_t i = 0; i < n; ++i) {
        const mfusim_sweep_row& w = rows[i];
        nb::dict d;
        d["vary_index"] = w.vary_index;
        d["series_index"] = w.series_index;
        d["ok"] = w.ok != 0;
        d["step_ms"] = w.step_ms;
        d["ttft_ms"] = w.ttft_ms;
        d["tpot_ms"] = w.tpot_ms;
        d["output_tok_s_gpu"] = w.output_tok_s_gpu;
        d["e2e_ms"] = w.e2e_ms;
        d["request_throughput_req_s"] = w.request_throughput_req_s;
        d["detail"] = text(mfusim_sweep_result_detail(result, i));
        d["error"] = text(mfusim_sweep_result_error(result, i));
        row_list.append(d);
    }
    return nb::make_tuple(row_list, text(mfusim_sweep_result_warnings(result)));
}

}  // namespace

NB_MODULE(_mfusim, m) {
    m.doc() = "The compiled layer of mfusim (nanobind over include/mfusim.h). Use the mfusim package instead.";
    if (_import_array() < 0) throw nb::python_error();
    error_factory = nb::object(nb::module_::import_("mfusim._errors").attr("from_status")).release().ptr();

    m.attr("HEADER_VERSION") = MFUSIM_VERSION_STRING;
    m.attr("REQUEST_SIZE") = sizeof(mfusim_request);
    m.attr("NO_OUTPUT") = MFUSIM_REQUEST_NO_OUTPUT;
    m.attr("OP_CAPACITY") = MFUSIM_OP_CAPACITY;

    m.def(
        "version", [] { return std::string(mfusim_version_string()); },
        "The version of the libmfusim actually loaded, \"MAJOR.MINOR.PATCH\".");
    m.def(
        "version_number", [] { return mfusim_version_number(); },
        "The loaded library's MAJOR*10000 + MINOR*100 + PATCH.");
    m.def(
        "models", [] { return catalogue(mfusim_catalogue_model_count, mfusim_catalogue_model_name); },
        "The built-in model catalogue (names accepted as Estimator(model=...)).");
    m.def(
        "gpus", [] { return catalogue(mfusim_catalogue_gpu_count, mfusim_catalogue_gpu_name); },
        "The built-in GPU profiles (names accepted as Estimator(gpu=...)).");
    m.def(
        "status_string", [](int32_t status) { return std::string(mfusim_status_string(status)); }, "status"_a,
        "The library's short English name of a status code.");
    m.def(
        "op_name", [](int32_t op) { return std::string(mfusim_op_name(op)); }, "op"_a);
    m.def(
        "_set_request_formats", [](std::vector<std::string> formats) { request_formats = std::move(formats); },
        "formats"_a);
    // Test hook: what a step_time call would pass to C for these requests (address, count, copied).
    m.def("_request_pointer", [](nb::handle requests) {
        const Requests r(requests);
        return nb::make_tuple(reinterpret_cast<uintptr_t>(r.data()), r.size(), r.copied());
    });

    m.def("_calibrate_steps", &calibrate_steps, "steps_path"_a, "model"_a.none(), "gpu"_a.none(), "tp"_a,
          "engine"_a.none(), "bench_data"_a.none(), "folds"_a,
          "mfusim_calibrate_steps: (document, report, improved); see mfusim.calibrate_steps.");
    m.def("_calibrate_kernels", &calibrate_kernels, "kernels_dir"_a, "gpu"_a, "bench_data"_a.none(),
          "mfusim_calibrate_kernels: (document, report, improved); see mfusim.calibrate_kernels.");

    m.def("_plan", &plan, "model"_a, "engine"_a.none(), "quant"_a.none(), "bench_data"_a.none(), "fp8_kv"_a,
          "fp8_gemm"_a, "gpus"_a, "tp_list"_a, "input_len"_a, "output_len"_a, "max_batched_tokens"_a, "max_seqs"_a,
          "gpu_memory_utilization"_a, "requests_per_client"_a, "max_ttft_ms"_a, "max_tpot_ms"_a, "max_concurrency"_a,
          "gpu_budget"_a, "simulate"_a, "disagg"_a, "decode_batches"_a, "least_loaded"_a,
          "mfusim_plan: (rows, per-GPU summaries, warnings); see mfusim.plan.");
    m.def("_param_sweep", &param_sweep, "model"_a.none(), "gpu"_a.none(), "tp"_a, "mode"_a, "engine"_a.none(),
          "quant"_a.none(), "bench_data"_a.none(), "fp8_kv"_a, "fp8_gemm"_a, "serving"_a, "simulate"_a, "vary"_a,
          "vary_values"_a, "series"_a, "series_values"_a, "input_len"_a.none(), "output_len"_a.none(),
          "concurrency"_a.none(), "max_batched_tokens"_a, "max_seqs"_a, "gpu_memory_utilization"_a,
          "requests_per_client"_a, "decode_batch"_a.none(), "context"_a.none(), "chunk"_a.none(),
          "mfusim_sweep: (rows, warnings); see mfusim.param_sweep.");
    nb::dict sweep_params;  // mfusim_sweep_param by its header name, lower case
    sweep_params["decode_batch"] = static_cast<int32_t>(MFUSIM_SWEEP_DECODE_BATCH);
    sweep_params["context"] = static_cast<int32_t>(MFUSIM_SWEEP_CONTEXT);
    sweep_params["chunk"] = static_cast<int32_t>(MFUSIM_SWEEP_CHUNK);
    sweep_params["concurrency"] = static_cast<int32_t>(MFUSIM_SWEEP_CONCURRENCY);
    sweep_params["isl"] = static_cast<int32_t>(MFUSIM_SWEEP_ISL);
    sweep_params["osl"] = static_cast<int32_t>(MFUSIM_SWEEP_OSL);
    sweep_params["tp"] = static_cast<int32_t>(MFUSIM_SWEEP_TP);
    sweep_params["gpu"] = static_cast<int32_t>(MFUSIM_SWEEP_GPU);
    sweep_params["model"] = static_cast<int32_t>(MFUSIM_SWEEP_MODEL);
    m.attr("SWEEP_PARAMS") = sweep_params;
    m.attr("SWEEP_NONE") = static_cast<int32_t>(MFUSIM_SWEEP_NONE);

    m.attr("SIMULATED_REQUEST_SIZE") = sizeof(mfusim_simulated_request);
    m.attr("SIMULATED_STEP_SIZE") = sizeof(mfusim_simulated_step);
    m.attr("TRACE_REQUEST_SIZE") = sizeof(mfusim_trace_request);
    nb::class_<SimulationResult>(m, "SimulationResult", "The native simulation result; see mfusim.SimulationResult.")
        .def("_summary", &SimulationResult::summary)
        .def("_requests_bytes", &SimulationResult::requests_bytes)
        .def("_timeline_bytes", &SimulationResult::timeline_bytes)
        .def("_percentile", &SimulationResult::percentile, "metric"_a, "p"_a);

    nb::class_<Estimator>(m, "Estimator", "The native estimator; see mfusim.Estimator.")
        .def(nb::init<const std::string&, const std::string&, const std::optional<std::string>&, int32_t, int32_t,
                      const std::optional<std::string>&, const std::optional<std::string>&, int32_t, int32_t, bool,
                      bool, std::optional<int32_t>, std::optional<int32_t>, bool, bool, std::optional<double>,
                      const std::optional<std::string>&, const std::optional<std::string>&, int32_t, double, double,
                      int64_t, int64_t, int64_t, double, double, const std::optional<std::string>&>(),
             "model"_a, "gpu"_a, "bench_data"_a = nb::none(), "mode"_a = 0, "tp"_a = 1, "engine"_a = nb::none(),
             "quant"_a = nb::none(), "ep"_a = 1, "attention_dp"_a = 1, "fp8_kv"_a = false, "fp8_gemm"_a = false,
             "world_size"_a = nb::none(), "num_nodes"_a = nb::none(), "deepep"_a = false, "two_batch_overlap"_a = false,
             "sm_ratio"_a = nb::none(), "calibration"_a = nb::none(), "speculative"_a = nb::none(),
             "num_speculative_tokens"_a = 0, "acceptance_rate"_a = 0.0, "mean_accepted_length"_a = 0.0,
             "images_per_request"_a = 0, "image_width"_a = 0, "image_height"_a = 0, "audio_seconds_per_request"_a = 0.0,
             "moe_routing_alpha"_a = 0.0, "draft_model"_a = nb::none())
        .def("step_time", &Estimator::step_time, "requests"_a,
             nb::sig("def step_time(self, requests: RequestsLike) -> float"),
             "Time of one engine step in microseconds.\n\n"
             "requests: a sequence of (new_tokens, context) or (new_tokens, context, flags) tuples, an int64 NumPy\n"
             "array of shape (n, 2), or a 1-D NumPy array of mfusim.REQUEST_DTYPE (passed to C without a copy).\n"
             "An empty step costs the engine's fixed per-step overhead (roofline) or 0 (infersim).\n"
             "Raises mfusim.InvalidArgumentError naming the request at fault.")
        .def("step_time_batch", &Estimator::step_time_batch, "requests"_a, "sizes"_a, "out"_a = nb::none(),
             nb::sig("def step_time_batch(self, requests: RequestsLike, sizes: SizesLike, "
                     "out: numpy.typing.NDArray[numpy.float64] | None = None) -> numpy.typing.NDArray[numpy.float64]"),
             "Times of many steps in one call, the GIL released: step i is the next sizes[i] requests.\n\n"
             "sizes must add up to len(requests) exactly. Returns a float64 array of len(sizes) microseconds;\n"
             "pass out (a float64 array of len(sizes)) to fill it instead of allocating one. On failure nothing\n"
             "is written and the error names the step.")
        .def("close", &Estimator::close,
             "Frees the native estimator (idempotent). Calls in flight on other threads finish first; later "
             "calls raise InvalidArgumentError.")
        .def_prop_ro("closed", &Estimator::closed, "True once close() has been called.")
        .def("_step_detail", &Estimator::step_detail, "requests"_a)
        .def("_estimate", &Estimator::estimate, "input_len"_a.none(), "output_len"_a.none(),
             "max_prefill_tokens"_a.none(), "decode_batch"_a.none(), "target_tgs"_a.none(), "target_tpot_ms"_a.none(),
             "phases"_a)
        .def("_serve", &Estimator::serve, "input_len"_a, "output_len"_a, "concurrency"_a, "max_batched_tokens"_a,
             "max_seqs"_a, "gpu_memory_utilization"_a, "requests_per_client"_a)
        .def("_disagg", &Estimator::disagg, "decode"_a, "input_len"_a, "output_len"_a, "concurrency"_a,
             "prefill_workers"_a, "decode_workers"_a, "prefill_batch"_a, "decode_batch"_a, "max_batched_tokens"_a,
             "gpu_memory_utilization"_a)
        .def("_simulate", &Estimator::simulate, "params"_a, "trace_address"_a, "trace_count"_a)
        .def("_engine_terms", &Estimator::engine_terms)
        .def("_load_warnings", &Estimator::load_warnings);
}

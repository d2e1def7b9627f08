// Each result struct's figures, declared once: name in the JSON document, the member or accessor
// that holds it, its unit and a line of documentation. The JSON writer, the schema tables of
// docs/json-schema.md and the Python types (python/stepscope/_figures.py) are all derived from
// these descriptions, so a figure is never spelled out twice.
//
//   template <> struct Fields<StreamIdle> {
//     static constexpr std::string_view kName = "StreamIdle";
//     static std::span<const Field> list() {
//       using D = Describe<StreamIdle>;
//       static const Field k[] = {
//           D::field<&StreamIdle::leading_idle_ns>("leading_idle_us", Unit::kMicrosecondsFromNs,
//                                                  "window start to the first activity"),
//       };
//       return k;
//     }
//   };
//
// Values: bool, integers, floating point, strings, enums (through their `to_string`), optionals
// and pointers (null when empty), ranges (arrays) and structs with their own `Fields` (objects).
// A struct whose Fields has `static constexpr bool kPositional = true` is written as an array of
// its values in field order (a compact row, e.g. a curve point), its field names documenting the
// positions.
// The descriptions are plain data behind function pointers, so the header stays light and a
// renderer walks them at run time.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "stepscope/analysis/options.h"

namespace stepscope {
struct Trace;
struct MemorySnapshot;
}  // namespace stepscope

namespace stepscope::figures {

enum class Unit : std::uint8_t {
  kNone,                       // text, flags, identifiers
  kCount,                      // a number of things
  kBytes,                      // bytes
  kShare,                      // a fraction in 0..1
  kGbPerSecond,                // 10^9 bytes per second
  kFlops,                      // floating-point operations
  kTflopsPerSecond,            // 10^12 floating-point operations per second
  kFlopsPerByte,               // arithmetic intensity: floating-point operations per byte moved
  kMicrosecondsFromNs,         // integer ns written as exact µs (at most three decimals)
  kMicrosecondsFromNsRounded,  // fractional ns rounded to the ns, written as µs
  kMicrosecondsFromNsExact,    // fractional ns (e.g. a percentile between two ns) as µs
  kMillisecondsFromNs,         // ns (integer or fractional) divided by 10^6
  kMicrosecondsFromSeconds,    // fractional seconds as µs (times 10^6)
  kMicrosecondsFromMs,         // fractional milliseconds as µs (times 10^3)
  kPercent,                    // a percentage, 0..100 (only where a document has always had one)
};

[[nodiscard]] constexpr std::string_view unit_label(Unit unit) {
  switch (unit) {
    case Unit::kNone:
      return "";
    case Unit::kCount:
      return "count";
    case Unit::kBytes:
      return "bytes";
    case Unit::kShare:
      return "share (0..1)";
    case Unit::kGbPerSecond:
      return "GB/s (10^9 B)";
    case Unit::kFlops:
      return "FLOP";
    case Unit::kTflopsPerSecond:
      return "TFLOP/s (10^12)";
    case Unit::kFlopsPerByte:
      return "FLOP/byte";
    case Unit::kMicrosecondsFromNs:
    case Unit::kMicrosecondsFromNsRounded:
    case Unit::kMicrosecondsFromNsExact:
    case Unit::kMicrosecondsFromSeconds:
    case Unit::kMicrosecondsFromMs:
      return "µs";
    case Unit::kMillisecondsFromNs:
      return "ms";
    case Unit::kPercent:
      return "%";
  }
  return "";
}

// Where values go: the JSON writer implements it.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_array() = 0;
  virtual void end_array() = 0;
  virtual void key(std::string_view name) = 0;
  virtual void string(std::string_view text) = 0;
  virtual void integer(std::int64_t number) = 0;
  virtual void unsigned_integer(std::uint64_t number) = 0;
  virtual void number(double number) = 0;  // non-finite: null
  virtual void boolean(bool flag) = 0;
  virtual void null() = 0;
  virtual void microseconds(std::int64_t ns) = 0;  // exact, up to three decimals
};

// What a struct's fields may depend on beyond the struct itself: the trace or the memory
// snapshot (names and stacks behind interned ids), and switches a parent result sets for its
// rows (`Fields<T>::enter`).
struct Context {
  const Trace* trace = nullptr;
  const MemorySnapshot* snapshot = nullptr;
  Mode mode = Mode::kNative;
  bool grouped_by_input_shape = false;
};

enum class Kind : std::uint8_t { kBoolean, kInteger, kNumber, kString, kArray, kObject };

struct Field;

struct TypeInfo {
  Kind kind = Kind::kString;
  bool nullable = false;
  const TypeInfo* element = nullptr;             // arrays
  std::string_view struct_name;                  // objects
  std::span<const Field> (*fields)() = nullptr;  // objects
  bool positional = false;                       // objects written as arrays (kPositional)
};

struct Field {
  std::string name;
  Unit unit = Unit::kNone;
  std::string_view doc;
  const TypeInfo* type = nullptr;
  // Writes the value (its key already written); `object` points to the described struct.
  void (*write)(Sink&, const void* object, Unit unit, const Context&) = nullptr;
  // Null: always present; else the field is written only where this returns true.
  bool (*present)(const void* object, const Context&) = nullptr;
  // The nested struct's fields are written into this object, without a key of their own.
  bool flatten = false;
};

template <typename T>
struct Fields;  // specialised next to each result struct (include/stepscope/figures/*_fields.h)

template <typename T>
concept Described = requires {
  Fields<T>::list();
};

template <typename T>
concept Positional = Described<T> && requires {
  requires Fields<T>::kPositional;
};

namespace detail {

template <typename V>
struct IsOptional : std::false_type {};
template <typename V>
struct IsOptional<std::optional<V>> : std::true_type {};

template <typename V>
concept StringLike = std::is_convertible_v<const V&, std::string_view>;

template <typename V>
concept Range = !StringLike<V> && requires(const V& v) {
  std::begin(v);
  std::end(v);
};

template <typename V>
constexpr Kind scalar_kind() {
  if constexpr (std::is_same_v<V, bool>) {
    return Kind::kBoolean;
  } else if constexpr (std::is_enum_v<V> || StringLike<V>) {
    return Kind::kString;
  } else if constexpr (std::is_integral_v<V>) {
    return Kind::kInteger;
  } else if constexpr (std::is_floating_point_v<V>) {
    return Kind::kNumber;
  } else if constexpr (Range<V>) {
    return Kind::kArray;
  } else {
    return Kind::kObject;
  }
}

}  // namespace detail

template <typename V>
const TypeInfo& type_of();

namespace detail {

template <typename V>
TypeInfo make_type() {
  TypeInfo info;
  if constexpr (IsOptional<V>::value) {
    info = type_of<typename V::value_type>();
    info.nullable = true;
  } else if constexpr (std::is_pointer_v<V>) {
    info = type_of<std::remove_cv_t<std::remove_pointer_t<V>>>();
    info.nullable = true;
  } else {
    info.kind = scalar_kind<V>();
    if constexpr (Range<V>) {
      using Element = std::remove_cvref_t<decltype(*std::begin(std::declval<const V&>()))>;
      info.element = &type_of<Element>();
    } else if constexpr (Described<V>) {
      info.struct_name = Fields<V>::kName;
      info.fields = &Fields<V>::list;
      info.positional = Positional<V>;
    }
  }
  return info;
}

}  // namespace detail

template <typename V>
const TypeInfo& type_of() {
  static const TypeInfo info = detail::make_type<V>();
  return info;
}

template <typename T>
void write_members(Sink& sink, const T& object, const Context& context);

template <typename V>
void write_value(Sink& sink, const V& value, Unit unit, const Context& context) {
  if constexpr (std::is_same_v<V, bool>) {
    sink.boolean(value);
  } else if constexpr (std::is_enum_v<V>) {
    sink.string(to_string(value));
  } else if constexpr (detail::StringLike<V>) {
    sink.string(std::string_view(value));
  } else if constexpr (std::is_integral_v<V>) {
    if (unit == Unit::kMillisecondsFromNs) {
      sink.number(static_cast<double>(value) / 1e6);
    } else if (unit == Unit::kMicrosecondsFromNs) {
      sink.microseconds(static_cast<std::int64_t>(value));
    } else if constexpr (std::is_signed_v<V>) {
      sink.integer(static_cast<std::int64_t>(value));
    } else {
      sink.unsigned_integer(static_cast<std::uint64_t>(value));
    }
  } else if constexpr (std::is_floating_point_v<V>) {
    if (unit == Unit::kMicrosecondsFromNsRounded) {
      sink.number(std::round(static_cast<double>(value)) / 1000.0);
    } else if (unit == Unit::kMicrosecondsFromNsExact) {
      sink.number(static_cast<double>(value) / 1000.0);
    } else if (unit == Unit::kMillisecondsFromNs) {
      sink.number(static_cast<double>(value) / 1e6);
    } else if (unit == Unit::kMicrosecondsFromSeconds) {
      sink.number(static_cast<double>(value) * 1e6);
    } else if (unit == Unit::kMicrosecondsFromMs) {
      sink.number(static_cast<double>(value) * 1e3);
    } else {
      sink.number(static_cast<double>(value));
    }
  } else if constexpr (detail::IsOptional<V>::value) {
    if (value) {
      write_value(sink, *value, unit, context);
    } else {
      sink.null();
    }
  } else if constexpr (std::is_pointer_v<V>) {
    if (value != nullptr) {
      write_value(sink, *value, unit, context);
    } else {
      sink.null();
    }
  } else if constexpr (detail::Range<V>) {
    sink.begin_array();
    for (const auto& element : value) write_value(sink, element, unit, context);
    sink.end_array();
  } else if constexpr (Positional<V>) {
    sink.begin_array();
    write_members(sink, value, context);
    sink.end_array();
  } else {
    sink.begin_object();
    write_members(sink, value, context);
    sink.end_object();
  }
}

template <typename T>
void write_members(Sink& sink, const T& object, const Context& parent) {
  Context context = parent;
  if constexpr (requires { Fields<T>::enter(object, context); }) Fields<T>::enter(object, context);
  for (const Field& field : Fields<T>::list()) {
    if (field.present != nullptr && !field.present(&object, context)) continue;
    if (!field.flatten && !Positional<T>) sink.key(field.name);
    field.write(sink, &object, field.unit, context);
  }
}

// A field under construction for struct T; `when<Predicate>()` makes it conditional.
template <typename T>
struct TypedField {
  Field field;
  template <auto Predicate>
  TypedField when() && {
    field.present = [](const void* object, const Context& context) -> bool {
      const T& t = *static_cast<const T*>(object);
      if constexpr (std::is_invocable_v<decltype(Predicate), const T&, const Context&>) {
        return Predicate(t, context);
      } else {
        return Predicate(t);
      }
    };
    return std::move(*this);
  }
  // NOLINTNEXTLINE(google-explicit-constructor): lets a TypedField sit in a Field array
  operator Field() && { return std::move(field); }
};

// The constructors of the descriptions of struct T.
template <typename T>
struct Describe {
  // Get: a member pointer, a const member function, or a function of (const T&) or of
  // (const T&, const Context&) computing the value (or returning a reference to it).
  template <auto Get>
  static decltype(auto) value_of(const T& object, const Context& context) {
    if constexpr (std::is_member_object_pointer_v<decltype(Get)>) {
      return std::cref(object.*Get);
    } else if constexpr (std::is_member_function_pointer_v<decltype(Get)>) {
      return (object.*Get)();
    } else if constexpr (std::is_invocable_v<decltype(Get), const T&, const Context&>) {
      return Get(object, context);
    } else {
      return Get(object);
    }
  }
  template <auto Get>
  using ValueType = std::remove_cvref_t<std::unwrap_reference_t<decltype(value_of<Get>(
      std::declval<const T&>(), std::declval<const Context&>()))>>;

  template <auto Get>
  static TypedField<T> field(std::string name, Unit unit, std::string_view doc) {
    using V = ValueType<Get>;
    Field f;
    f.name = std::move(name);
    f.unit = unit;
    f.doc = doc;
    f.type = &type_of<V>();
    f.write = [](Sink& sink, const void* object, Unit write_unit, const Context& context) {
      const T& t = *static_cast<const T*>(object);
      const auto& value = value_of<Get>(t, context);
      write_value<V>(sink, value, write_unit, context);
    };
    return TypedField<T>{std::move(f)};
  }

  // The fields of the nested struct at Get, written into T's object.
  template <auto Get>
  static TypedField<T> flatten() {
    using V = ValueType<Get>;
    Field f;
    f.type = &type_of<V>();
    f.flatten = true;
    f.write = [](Sink& sink, const void* object, Unit, const Context& context) {
      const T& t = *static_cast<const T*>(object);
      write_members<V>(sink, value_of<Get>(t, context), context);
    };
    return TypedField<T>{std::move(f)};
  }
};

}  // namespace stepscope::figures

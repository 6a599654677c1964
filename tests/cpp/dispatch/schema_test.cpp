#include <gtest/gtest.h>

#include "dispatch/schema.h"

using ct::ArgType;
using ct::parse_schema;
using ct::Schema;
using ct::Value;

TEST(Schema, ParsesOverloadNameKwargOnlyDefaultsAndAliasAnnotations) {
  Schema s = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_EQ(s.ns, "");
  EXPECT_EQ(s.name, "add_");
  EXPECT_EQ(s.overload, "Tensor");
  EXPECT_EQ(s.full_name(), "add_.Tensor");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].name, "self");
  EXPECT_EQ(s.args[0].type, ArgType::Tensor);
  EXPECT_TRUE(s.args[0].writes);
  EXPECT_EQ(s.args[0].type_text, "Tensor(a!)");
  EXPECT_FALSE(s.args[0].kwarg_only);
  EXPECT_FALSE(s.args[1].writes);
  EXPECT_FALSE(s.args[1].kwarg_only);
  EXPECT_EQ(s.args[2].name, "alpha");
  EXPECT_EQ(s.args[2].type, ArgType::Scalar);
  EXPECT_TRUE(s.args[2].kwarg_only);
  EXPECT_TRUE(s.args[2].has_default);
  EXPECT_EQ(s.args[2].default_value.kind, Value::Kind::Int);
  EXPECT_EQ(s.args[2].default_value.i, 1);
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].type, ArgType::Tensor);
  EXPECT_TRUE(s.returns[0].writes);
  EXPECT_TRUE(s.mutates());
  EXPECT_EQ(s.text, "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
}

TEST(Schema, NonWritingAliasAnnotationIsNotAMutation) {
  Schema s = parse_schema("view(Tensor(a) self, int[] size) -> Tensor(a)");
  EXPECT_FALSE(s.args[0].writes);
  EXPECT_EQ(s.args[0].type_text, "Tensor(a)");
  EXPECT_EQ(s.args[1].type, ArgType::IntList);
  EXPECT_FALSE(s.mutates());
  EXPECT_EQ(s.overload, "");
  EXPECT_EQ(s.full_name(), "view");
}

TEST(Schema, PrintsOneLineInOneSpellingWhateverTheWhitespace) {
  // The fuzzer's find: an alias annotation written over several lines printed them back, so the
  // printed schema was no longer one line (and its first line did not parse).
  const Schema s = parse_schema("ns::f(Tensor ( a\n\n ! ) self, int [2] d) -> Tensor(a\n!)");
  EXPECT_EQ(s.args[0].type_text, "Tensor(a!)");
  EXPECT_EQ(s.args[1].type_text, "int[2]");
  EXPECT_EQ(s.returns[0].type_text, "Tensor(a!)");
  EXPECT_EQ(s.text, "ns::f(Tensor(a!) self, int[2] d) -> Tensor(a!)");
  EXPECT_EQ(parse_schema(s.text).text, s.text);
}

TEST(Schema, ParsesNamespacedNames) {
  Schema s = parse_schema("myext::scale.out(Tensor x, float alpha=2.0) -> Tensor");
  EXPECT_EQ(s.ns, "myext");
  EXPECT_EQ(s.name, "myext::scale");
  EXPECT_EQ(s.overload, "out");
  EXPECT_EQ(s.full_name(), "myext::scale.out");
}

TEST(Schema, ParsesOptionalTypes) {
  Schema s = parse_schema("clamp(Tensor self, Scalar? min=None, Scalar? max=None, int? dim=None) -> Tensor");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_FALSE(s.args[0].optional);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_TRUE(s.args[i].optional) << i;
    EXPECT_TRUE(s.args[i].has_default) << i;
    EXPECT_EQ(s.args[i].default_value.kind, Value::Kind::None) << i;
    EXPECT_TRUE(s.args[i].default_value.as_value().is_none()) << i;
  }
  EXPECT_EQ(s.args[1].type, ArgType::Scalar);
  EXPECT_EQ(s.args[1].type_text, "Scalar?");
  EXPECT_EQ(s.args[3].type, ArgType::Int);
  EXPECT_EQ(s.text, "clamp(Tensor self, Scalar? min=None, Scalar? max=None, int? dim=None) -> Tensor");
}

TEST(Schema, ParsesIntListDefaults) {
  Schema s = parse_schema("sum.dim_IntList(Tensor self, int[1] dim=[0, 1], bool keepdim=False, int[] e=[]) -> Tensor");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_EQ(s.args[1].type, ArgType::IntList);
  EXPECT_EQ(s.args[1].type_text, "int[1]");
  EXPECT_EQ(s.args[1].default_value.kind, Value::Kind::IntList);
  EXPECT_EQ(s.args[1].default_value.ints, (std::vector<int64_t>{0, 1}));
  ct::Value v = s.args[1].default_value.as_value();
  EXPECT_EQ(v.kind(), Value::Kind::IntList);
  EXPECT_TRUE(v.int_list().equals({0, 1}));
  EXPECT_EQ(s.args[2].default_value.kind, Value::Kind::Bool);
  EXPECT_FALSE(s.args[2].default_value.as_value().to_bool());
  EXPECT_TRUE(s.args[3].default_value.ints.empty());
  EXPECT_EQ(s.text, "sum.dim_IntList(Tensor self, int[1] dim=[0, 1], bool keepdim=False, int[] e=[]) -> Tensor");
}

TEST(Schema, ScalarIntListDefaultExpandsToAList) {
  Schema s = parse_schema("pool(Tensor self, int[2] stride=1) -> Tensor");
  EXPECT_EQ(s.args[1].default_value.kind, Value::Kind::IntList);
  EXPECT_EQ(s.args[1].default_value.ints, (std::vector<int64_t>{1}));
}

TEST(Schema, FloatDefaultsKeepTheirDecimalPoint) {
  Schema s = parse_schema("f(Tensor x, float a=1.0, float b=0.5, float c=-2., float d=1e-05, bool t=True) -> Tensor");
  ASSERT_EQ(s.args.size(), 6u);
  EXPECT_EQ(s.args[1].type, ArgType::Float);
  EXPECT_EQ(s.args[1].default_value.kind, Value::Kind::Double);
  EXPECT_EQ(s.args[1].default_value.d, 1.0);
  EXPECT_EQ(s.args[1].default_value.to_string(), "1.0");
  EXPECT_EQ(s.args[2].default_value.to_string(), "0.5");
  EXPECT_EQ(s.args[3].default_value.d, -2.0);
  EXPECT_EQ(s.args[3].default_value.to_string(), "-2.0");
  EXPECT_EQ(s.args[4].default_value.d, 1e-5);
  EXPECT_EQ(s.args[5].default_value.kind, Value::Kind::Bool);
  EXPECT_TRUE(s.args[5].default_value.as_value().to_bool());
  EXPECT_EQ(s.text.substr(0, 29), "f(Tensor x, float a=1.0, floa");
  EXPECT_NE(s.text.find("float a=1.0,"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("float c=-2.0,"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("bool t=True"), std::string::npos) << s.text;
}

TEST(Schema, ParsesStringScalarTypeAndDeviceArguments) {
  Schema s = parse_schema(
      "g(Tensor x, str mode='mean', *, ScalarType? dtype=None, Device? device=None, Tensor[] rest) -> Tensor");
  ASSERT_EQ(s.args.size(), 5u);
  EXPECT_EQ(s.args[1].type, ArgType::String);
  EXPECT_EQ(s.args[1].default_value.s, "mean");
  EXPECT_STREQ(s.args[1].default_value.as_value().str(), "mean");
  EXPECT_FALSE(s.args[1].kwarg_only);
  EXPECT_EQ(s.args[2].type, ArgType::ScalarType);
  EXPECT_TRUE(s.args[2].kwarg_only);
  EXPECT_EQ(s.args[3].type, ArgType::Device);
  EXPECT_EQ(s.args[4].type, ArgType::TensorList);
  EXPECT_TRUE(s.args[4].kwarg_only);
  EXPECT_FALSE(s.args[4].has_default);
}

TEST(Schema, ParsesMultipleReturns) {
  Schema s = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  Schema u = parse_schema("split2(Tensor self) -> (Tensor, Tensor)");
  ASSERT_EQ(u.returns.size(), 2u);
  EXPECT_EQ(u.returns[0].type, ArgType::Tensor);
  EXPECT_EQ(u.returns[0].name, "");
  EXPECT_EQ(u.text, "split2(Tensor self) -> (Tensor, Tensor)");
  Schema none = parse_schema("noop(Tensor self) -> ()");
  EXPECT_TRUE(none.returns.empty());
}

TEST(Schema, ParsesNoArgumentsAndExtraWhitespace) {
  Schema s = parse_schema("  seed ( )  ->  int  ");
  EXPECT_EQ(s.name, "seed");
  EXPECT_TRUE(s.args.empty());
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].type, ArgType::Int);
}

namespace {
// The reported position must lie in [lo, hi]: where the offending token starts, up to just past it.
void expect_format_error(const std::string& text, size_t lo, size_t hi) {
  try {
    parse_schema(text);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_FORMAT) << text;
    const std::string& m = e.message();
    const size_t at = m.find("at position ");
    ASSERT_NE(at, std::string::npos) << m;
    const size_t pos = std::stoul(m.substr(at + 12));
    EXPECT_GE(pos, lo) << m;
    EXPECT_LE(pos, hi) << m;
    EXPECT_NE(m.find(text), std::string::npos) << "the message should quote the schema: " << m;
  }
}
void expect_format_error(const std::string& text, size_t position) { expect_format_error(text, position, position); }
}  // namespace

TEST(Schema, MalformedSchemaRaisesFormatErrorWithPosition) {
  expect_format_error("add(Tensor self", 15);                 // missing ')'
  expect_format_error("add(Tensor self) Tensor", 17);         // missing '->'
  expect_format_error("add(Tensor self) -> Tensor)", 26);      // trailing text
  expect_format_error("add(Tenser self) -> Tensor", 4, 11);   // unknown type
  expect_format_error("add(Tensor self, int x=) -> Tensor", 23);
  expect_format_error("(Tensor self) -> Tensor", 0);          // no name
  expect_format_error("add(float[] x) -> Tensor", 4, 12);     // unsupported list
  expect_format_error("add(str s='abc) -> Tensor", 11);       // unterminated string
  expect_format_error("", 0);
}

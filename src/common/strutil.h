// Number parsing/formatting and glob matching with Redis's exact rules.
// Pure functions, no allocation unless they return std::string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace common::strutil {

// Strict integer: optional '-', no leading zeros (except "0"), no spaces or
// '+', must fit int64. Returns false otherwise.
bool parseInt64(std::string_view s, int64_t* out);
bool parseUint64(std::string_view s, uint64_t* out);
// Writes the decimal form into buf (>= 21 bytes); returns its length.
size_t formatInt64(int64_t v, char* buf);
std::string int64ToString(int64_t v);
// Decimal digits of v (for "$<len>" headers without formatting twice).
int digits10(uint64_t v);

// Like strtold over the whole string: no spaces, not empty, not NaN.
// Accepts "inf", "+inf", "-inf" as Redis does.
bool parseLongDouble(std::string_view s, long double* out);
bool parseDouble(std::string_view s, double* out);
// INCRBYFLOAT / HINCRBYFLOAT operands: parseLongDouble, but a literal too
// large for long double (which strtold turns into an infinity) is refused;
// only infinities spelled out ("inf") pass, as in Redis.
bool parseFloatOperand(std::string_view s, long double* out);
// INCRBYFLOAT / HINCRBYFLOAT form: %.17Lg in fixed notation with trailing
// zeros removed ("3.5", "10", "1.0e+20" never happens: fixed is used).
std::string formatLongDouble(long double v);
// Reply form of a double (RESP3 ',' payload and RESP2 bulk): %.17g with
// "inf"/"-inf"; integers without a decimal point.
size_t formatDouble(double v, char* buf, size_t cap);

// Glob-style match as in KEYS/SCAN MATCH: * ? [abc] [^a] [a-z] and \x.
bool globMatch(std::string_view pattern, std::string_view str, bool nocase = false);

// ASCII case-insensitive equality (command and option names).
bool equalsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace common::strutil

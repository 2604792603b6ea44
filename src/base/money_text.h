// Dollars as people read them in text output: "$11,167,948.80", "<$0.01". The one formatter of
// money for the terminal and the report's text; JSON keeps the number.
#pragma once

#include <string>

namespace plasmient {

// Cents with thousands separators ("$1,234.50", "-$3.00", "$0.00"); a positive amount below a
// cent is "<$0.01" (a short trace's bill is small, and "$0.0000" says it is nothing); "n/a" when
// not finite.
std::string Money(double dollars);

}  // namespace plasmient

// The frame every HTML report shares: one self-contained file (no network, no scripts, no
// external fonts), light and dark colour schemes, readable when printed.
#pragma once

#include <string>
#include <string_view>

namespace plasmient::exporting {

// Text for HTML/SVG bodies and attribute values: & < > " ' escaped.
std::string HtmlEscape(std::string_view text);

// <!doctype html> … <body> with the stylesheet; `title` is escaped.
std::string HtmlBegin(std::string_view title);
std::string HtmlEnd();

// The CSS custom property (var(--…)) that colours a loss, by its key; "--achieved" for useful work.
std::string LossColorVar(std::string_view loss_key);

}  // namespace plasmient::exporting

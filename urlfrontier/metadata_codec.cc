#include "urlfrontier/metadata_codec.h"

namespace frontier::urlfrontier {
namespace {

void AppendEscaped(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\n':
        *out += "\\n";
        break;
      default:
        *out += c;
    }
  }
}

// Undoes AppendEscaped; nullopt for a lone backslash or an unknown escape.
std::optional<std::string> Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    switch (text[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace

std::string EncodeMetadata(const Metadata& metadata) {
  std::string out;
  for (const auto& [key, values] : metadata) {
    if (values.empty()) {
      AppendEscaped(key, &out);
      out += '\n';
    }
    for (const std::string& value : values) {
      AppendEscaped(key, &out);
      out += '\t';
      AppendEscaped(value, &out);
      out += '\n';
    }
  }
  return out;
}

std::optional<Metadata> DecodeMetadata(std::string_view value) {
  Metadata metadata;
  while (!value.empty()) {
    const size_t end = value.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view line = value.substr(0, end);
    value.remove_prefix(end + 1);
    const size_t tab = line.find('\t');
    std::optional<std::string> key = Unescape(line.substr(0, tab));
    if (!key) return std::nullopt;
    std::vector<std::string>& values = metadata[*key];
    if (tab == std::string_view::npos) continue;
    std::optional<std::string> item = Unescape(line.substr(tab + 1));
    if (!item) return std::nullopt;
    values.push_back(std::move(*item));
  }
  return metadata;
}

}  // namespace frontier::urlfrontier

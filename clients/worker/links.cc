#include "links.h"

#include <gumbo.h>
#include <uriparser/Uri.h>

#include <cstring>
#include <memory>
#include <unordered_set>

namespace worker {
namespace {

// Owns a parsed UriUriA; the text it points into must outlive it.
class ParsedUri {
 public:
  ParsedUri() { std::memset(&uri_, 0, sizeof uri_); }
  ~ParsedUri() { uriFreeUriMembersA(&uri_); }
  ParsedUri(const ParsedUri&) = delete;
  ParsedUri& operator=(const ParsedUri&) = delete;

  bool Parse(const std::string& text) {
    const char* error_pos = nullptr;
    return uriParseSingleUriExA(&uri_, text.data(), text.data() + text.size(),
                                &error_pos) == URI_SUCCESS;
  }
  UriUriA* get() { return &uri_; }

 private:
  UriUriA uri_;
};

bool IsAsciiWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// What a browser does to an href before parsing it: leading and trailing
// whitespace trimmed, tabs and newlines removed, and what RFC 3986 does not
// allow percent-encoded ('%' itself is kept: hrefs are already encoded).
std::string CleanReference(std::string_view href) {
  while (!href.empty() && IsAsciiWhitespace(href.front()))
    href.remove_prefix(1);
  while (!href.empty() && IsAsciiWhitespace(href.back())) href.remove_suffix(1);
  static constexpr char kHex[] = "0123456789ABCDEF";
  static constexpr std::string_view kUnsafe = " \"<>\\^`{|}";
  std::string out;
  out.reserve(href.size());
  for (char c : href) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (byte < 0x20 || byte >= 0x7f ||
        kUnsafe.find(c) != std::string_view::npos) {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

bool IsHttpScheme(const UriUriA& uri) {
  std::string_view scheme(
      uri.scheme.first,
      static_cast<size_t>(uri.scheme.afterLast - uri.scheme.first));
  auto equals = [&](std::string_view want) {
    if (scheme.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      char c = scheme[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != want[i]) return false;
    }
    return true;
  };
  return uri.scheme.first != nullptr && (equals("http") || equals("https"));
}

// The first <base href> of the document (HTML: only the first counts).
const char* FindBaseHref(const GumboNode* node) {
  if (node->type != GUMBO_NODE_ELEMENT) return nullptr;
  const GumboElement& element = node->v.element;
  if (element.tag == GUMBO_TAG_BASE) {
    if (const GumboAttribute* href =
            gumbo_get_attribute(&element.attributes, "href")) {
      return href->value;
    }
  }
  for (unsigned i = 0; i < element.children.length; ++i) {
    const char* found =
        FindBaseHref(static_cast<const GumboNode*>(element.children.data[i]));
    if (found != nullptr) return found;
  }
  return nullptr;
}

void CollectHrefs(const GumboNode* node, std::vector<const char*>* out) {
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const GumboElement& element = node->v.element;
  if (element.tag == GUMBO_TAG_A || element.tag == GUMBO_TAG_AREA) {
    if (const GumboAttribute* href =
            gumbo_get_attribute(&element.attributes, "href")) {
      out->push_back(href->value);
    }
  }
  for (unsigned i = 0; i < element.children.length; ++i) {
    CollectHrefs(static_cast<const GumboNode*>(element.children.data[i]), out);
  }
}

struct GumboOutputDeleter {
  void operator()(GumboOutput* output) const {
    gumbo_destroy_output(&kGumboDefaultOptions, output);
  }
};

}  // namespace

std::optional<std::string> ResolveLink(std::string_view base,
                                       std::string_view reference) {
  std::string base_text = CleanReference(base);
  std::string reference_text = CleanReference(reference);
  ParsedUri base_uri, reference_uri, resolved;
  if (!base_uri.Parse(base_text) || !reference_uri.Parse(reference_text) ||
      !IsHttpScheme(*base_uri.get())) {
    return std::nullopt;
  }
  if (uriAddBaseUriA(resolved.get(), reference_uri.get(), base_uri.get()) !=
      URI_SUCCESS) {
    return std::nullopt;
  }
  UriUriA* uri = resolved.get();
  if (!IsHttpScheme(*uri) || uri->hostText.first == nullptr ||
      uri->hostText.first == uri->hostText.afterLast) {
    return std::nullopt;
  }
  uri->fragment.first = nullptr;
  uri->fragment.afterLast = nullptr;
  // RFC 3986 section 6.2.2: case of scheme, host and percent-escapes, dot
  // segments; so that spellings of one link count once per page. (frontierd
  // normalises further, e.g. default ports.)
  if (uriNormalizeSyntaxA(uri) != URI_SUCCESS) return std::nullopt;
  int chars = 0;
  if (uriToStringCharsRequiredA(uri, &chars) != URI_SUCCESS)
    return std::nullopt;
  std::string out(static_cast<size_t>(chars) + 1, '\0');
  if (uriToStringA(out.data(), uri, chars + 1, nullptr) != URI_SUCCESS) {
    return std::nullopt;
  }
  out.resize(static_cast<size_t>(chars));
  return out;
}

std::vector<std::string> ExtractLinks(std::string_view html,
                                      std::string_view page_url) {
  std::unique_ptr<GumboOutput, GumboOutputDeleter> output(
      gumbo_parse_with_options(&kGumboDefaultOptions, html.data(),
                               html.size()));
  std::vector<std::string> links;
  if (!output) return links;

  std::string base(page_url);
  if (const char* base_href = FindBaseHref(output->root)) {
    // An unusable <base href> is ignored, as browsers do.
    if (auto resolved = ResolveLink(page_url, base_href)) base = *resolved;
  }
  std::vector<const char*> hrefs;
  CollectHrefs(output->root, &hrefs);
  std::unordered_set<std::string> seen;
  for (const char* href : hrefs) {
    auto link = ResolveLink(base, href);
    if (link && seen.insert(*link).second) links.push_back(std::move(*link));
  }
  return links;
}

}  // namespace worker

// Reading a rendered prompt (prompts/README.md gives the line formats): the tensor list, the
// fx op list, the retrieved memory, the earlier attempts and the refine start point.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "sim/sim_internal.h"

namespace evk::sim {

const Py* Py::get(const std::string& key) const {
  for (const auto& [k, v] : kw)
    if (k == key) return &v;
  return nullptr;
}

namespace {

void skip_ws(const std::string& t, size_t& pos) {
  while (pos < t.size() && std::isspace(static_cast<unsigned char>(t[pos]))) ++pos;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

[[noreturn]] void fail(const std::string& t, size_t pos, const std::string& what) {
  throw std::runtime_error("python literal: " + what + " at " + std::to_string(pos) + " in '" +
                           t.substr(0, 120) + "'");
}

// Parses comma-separated items up to `close`; keyword items go to kw when allowed.
void parse_items(const std::string& t, size_t& pos, char close, Py& into, bool keywords) {
  for (;;) {
    skip_ws(t, pos);
    if (pos >= t.size()) fail(t, pos, "unterminated sequence");
    if (t[pos] == close) {
      ++pos;
      return;
    }
    if (keywords) {  // name=value ?
      size_t q = pos;
      while (q < t.size() && (std::isalnum(static_cast<unsigned char>(t[q])) || t[q] == '_')) ++q;
      if (q > pos && q < t.size() && t[q] == '=' && (q + 1 >= t.size() || t[q + 1] != '=')) {
        std::string key = t.substr(pos, q - pos);
        pos = q + 1;
        into.kw.emplace_back(key, parse_py(t, pos));
        goto next;
      }
    }
    into.items.push_back(parse_py(t, pos));
  next:
    skip_ws(t, pos);
    if (pos < t.size() && t[pos] == ',') ++pos;
    else if (pos < t.size() && t[pos] != close) fail(t, pos, "expected ',' or closing bracket");
  }
}

}  // namespace

Py parse_py(const std::string& t, size_t& pos) {
  skip_ws(t, pos);
  if (pos >= t.size()) fail(t, pos, "unexpected end");
  Py v;
  char c = t[pos];
  if (c == '(' || c == '[') {
    ++pos;
    v.kind = c == '(' ? Py::kTuple : Py::kList;
    parse_items(t, pos, c == '(' ? ')' : ']', v, false);
    return v;
  }
  if (c == '{') {
    ++pos;
    v.kind = Py::kDict;
    for (;;) {
      skip_ws(t, pos);
      if (pos < t.size() && t[pos] == '}') {
        ++pos;
        return v;
      }
      Py key = parse_py(t, pos);
      skip_ws(t, pos);
      if (pos >= t.size() || t[pos] != ':') fail(t, pos, "expected ':' in dict");
      ++pos;
      Py val = parse_py(t, pos);
      v.kw.emplace_back(key.kind == Py::kStr || key.kind == Py::kName ? key.s
                                                                       : std::to_string(key.i),
                        val);
      skip_ws(t, pos);
      if (pos < t.size() && t[pos] == ',') ++pos;
    }
  }
  if (c == '\'' || c == '"') {
    size_t e = pos + 1;
    std::string s;
    while (e < t.size() && t[e] != c) {
      if (t[e] == '\\' && e + 1 < t.size()) ++e;
      s += t[e++];
    }
    if (e >= t.size()) fail(t, pos, "unterminated string");
    pos = e + 1;
    v.kind = Py::kStr;
    v.s = s;
    return v;
  }
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
      (c == '.' && pos + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[pos + 1])))) {
    size_t e = pos + 1;
    while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '.' ||
                            ((t[e] == '-' || t[e] == '+') && (t[e - 1] == 'e' || t[e - 1] == 'E'))))
      ++e;
    std::string num = t.substr(pos, e - pos);
    if (num == "-inf" || num == "+inf" || num == "-nan") {
      v.kind = Py::kFloat;
      v.f = num[0] == '-' && num[1] == 'i' ? -HUGE_VAL : HUGE_VAL;
      pos = e;
      return v;
    }
    if ((c == '-' || c == '+') && e == pos + 1) fail(t, pos, "lone sign");
    pos = e;
    if (num.find_first_of(".eE") != std::string::npos || num.find("inf") != std::string::npos) {
      v.kind = Py::kFloat;
      v.f = std::strtod(num.c_str(), nullptr);
    } else {
      v.kind = Py::kInt;
      v.i = std::strtoll(num.c_str(), nullptr, 10);
    }
    return v;
  }
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '<') {
    size_t e = pos;
    if (c == '<') {  // <built-in method ...>: an opaque object
      e = t.find('>', pos);
      if (e == std::string::npos) fail(t, pos, "unterminated <...>");
      v.kind = Py::kName;
      v.s = t.substr(pos, e + 1 - pos);
      pos = e + 1;
      return v;
    }
    while (e < t.size() && ident_char(t[e])) ++e;
    std::string id = t.substr(pos, e - pos);
    pos = e;
    if (id == "None") return v;
    if (id == "True" || id == "False") {
      v.kind = Py::kBool;
      v.b = id == "True";
      return v;
    }
    if (id == "inf" || id == "nan") {
      v.kind = Py::kFloat;
      v.f = id == "inf" ? HUGE_VAL : std::strtod("nan", nullptr);
      return v;
    }
    skip_ws(t, pos);
    if (pos < t.size() && t[pos] == '(') {
      ++pos;
      v.kind = Py::kCall;
      v.s = id;
      parse_items(t, pos, ')', v, true);
      return v;
    }
    v.kind = Py::kName;
    v.s = id;
    return v;
  }
  fail(t, pos, std::string("unexpected '") + c + "'");
}

Py parse_py(const std::string& text) {
  size_t pos = 0;
  return parse_py(text, pos);
}

namespace {

std::vector<int64_t> parse_shape(const std::string& s) {
  std::vector<int64_t> out;
  Py v = parse_py(s);
  if (!v.is_seq()) throw std::runtime_error("shape is not a list: " + s);
  for (const Py& d : v.items) out.push_back(d.i);
  return out;
}

// `- in[1] param.fc.weight: param F32 [64, 128]` (also "input scalar I64 []").
bool parse_tensor_line(const std::string& line, TensorLine& t) {
  if (line.rfind("- in[", 0) != 0 && line.rfind("- out[", 0) != 0) return false;
  t.output = line[2] == 'o';
  size_t lb = line.find('['), rb = line.find(']');
  size_t colon = line.find(": ", rb);
  if (lb == std::string::npos || rb == std::string::npos || colon == std::string::npos) return false;
  t.index = std::atoi(line.substr(lb + 1, rb - lb - 1).c_str());
  t.name = line.substr(rb + 2, colon - rb - 2);
  std::istringstream rest(line.substr(colon + 2));
  rest >> t.role;
  std::string word;
  rest >> word;
  if (word == "scalar") {
    t.scalar = true;
    rest >> word;
  }
  t.dtype = word;
  std::string shape;
  std::getline(rest, shape);
  try {
    t.shape = parse_shape(shape);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// `- %NAME = KIND TARGET [MODULE] args=ARGS kwargs=KWARGS -> SHAPE`
bool parse_op_line(const std::string& line, FxOp& op) {
  if (line.rfind("- %", 0) != 0) return false;
  size_t eq = line.find(" = ");
  if (eq == std::string::npos) return false;
  op.name = line.substr(3, eq - 3);
  size_t pos = eq + 3;
  size_t sp = line.find(' ', pos);
  if (sp == std::string::npos) return false;
  op.kind = line.substr(pos, sp - pos);
  pos = sp + 1;
  sp = line.find(' ', pos);
  if (sp == std::string::npos) return false;
  op.target = line.substr(pos, sp - pos);
  pos = sp + 1;
  if (pos < line.size() && line[pos] == '[') {  // the module repr, brackets balanced
    int depth = 0;
    size_t e = pos;
    char quote = 0;
    for (; e < line.size(); ++e) {
      char c = line[e];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '[') {
        ++depth;
      } else if (c == ']' && --depth == 0) {
        break;
      }
    }
    if (e >= line.size()) return false;
    std::string repr = line.substr(pos + 1, e - pos - 1);
    op.has_module = true;
    try {
      op.module = parse_py(repr);
    } catch (const std::exception&) {
      op.module = Py{};
      op.module.kind = Py::kName;
      op.module.s = repr.substr(0, repr.find('('));
    }
    pos = e + 2;
  }
  if (line.compare(pos, 5, "args=") != 0) return false;
  pos += 5;
  try {
    op.args = parse_py(line, pos);
    skip_ws(line, pos);
    if (line.compare(pos, 7, "kwargs=") != 0) return false;
    pos += 7;
    op.kwargs = parse_py(line, pos);
  } catch (const std::exception&) {
    return false;
  }
  size_t arrow = line.find("-> ", pos);
  if (arrow == std::string::npos) return false;
  std::string shape = line.substr(arrow + 3);
  if (shape != "?") {
    try {
      op.shape = parse_shape(shape);
      op.shape_known = true;
    } catch (const std::exception&) {
    }
  }
  return true;
}

// Splits the prompt into its "## " sections (headers inside code fences do not count).
std::vector<std::pair<std::string, std::string>> sections(const std::string& prompt) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("", "");
  std::istringstream in(prompt);
  std::string line;
  bool fence = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) fence = !fence;
    if (!fence && line.rfind("## ", 0) == 0) {
      out.emplace_back(line.substr(3), "");
      continue;
    }
    out.back().second += line;
    out.back().second += '\n';
  }
  return out;
}

std::string first_code_block(const std::string& text) {
  size_t a = text.find("```");
  if (a == std::string::npos) return "";
  size_t nl = text.find('\n', a);
  if (nl == std::string::npos) return "";
  size_t b = text.find("\n```", nl);
  return text.substr(nl + 1, b == std::string::npos ? std::string::npos : b - nl);
}

// The best_practice items of a memory section: header line to the next item header.
std::string best_practice_text(const std::string& memory) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t h = memory.find("### [memory #", pos);
    if (h == std::string::npos) break;
    size_t next = memory.find("### [memory #", h + 1);
    size_t eol = memory.find('\n', h);
    std::string header = memory.substr(h, eol == std::string::npos ? std::string::npos : eol - h);
    if (header.find("] best_practice:") != std::string::npos)
      out += memory.substr(h, next == std::string::npos ? std::string::npos : next - h);
    if (next == std::string::npos) break;
    pos = next;
  }
  return out;
}

}  // namespace

PromptView parse_prompt(const std::string& prompt) {
  PromptView v;
  // The templates open with "... for the `NAME` backend"; only the first lines are looked at,
  // so a retrieved item naming another backend cannot switch it.
  std::string head = prompt.substr(0, prompt.find("\n## "));
  if (size_t b = head.find(" backend"); b != std::string::npos && b > 0 && head[b - 1] == '`') {
    size_t a = head.rfind('`', b - 2);
    if (a != std::string::npos) v.backend = head.substr(a + 1, b - 2 - a);
  }
  for (const auto& [title, body] : sections(prompt)) {
    if (title.rfind("Tensors", 0) == 0) {
      std::istringstream in(body);
      std::string line;
      while (std::getline(in, line)) {
        TensorLine t;
        if (parse_tensor_line(line, t)) v.tensors.push_back(t);
      }
    } else if (title.rfind("Operators", 0) == 0) {
      if (body.find("(not traceable)") != std::string::npos) v.not_traceable = true;
      std::istringstream in(body);
      std::string line;
      while (std::getline(in, line)) {
        FxOp op;
        if (parse_op_line(line, op)) v.ops.push_back(std::move(op));
      }
      v.has_ops = !v.ops.empty();
    } else if (title.rfind("Retrieved memory", 0) == 0) {
      v.context += body;
      v.best_practices += best_practice_text(body);
    } else if (title.rfind("Your earlier attempts", 0) == 0 || title.rfind("Children", 0) == 0) {
      v.context += body;
    } else if (title.rfind("Diagnosis", 0) == 0) {
      v.diagnosis = body;
    } else if (title.rfind("Start point", 0) == 0) {
      v.refine = true;
      v.start_code = first_code_block(body);
    }
  }
  return v;
}

uint64_t Rng::next() {
  uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

bool Plan::has_move(const std::string& m) const {
  for (const auto& [name, param] : moves)
    if (name == m) return true;
  return false;
}

int Plan::move_param(const std::string& m) const {
  for (const auto& [name, param] : moves)
    if (name == m) return param;
  return 0;
}

}  // namespace evk::sim

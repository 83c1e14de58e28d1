/* schedhost/json_args.h - read a C plugin's args (the JSON create() receives) by JSON pointer.
 *
 *   char label[128];
 *   switch (schedhost_args_string(args_json, "/requiredLabel", label, sizeof label)) {
 *     case SCHEDHOST_ARGS_OK: break;
 *     case SCHEDHOST_ARGS_ABSENT: return refuse("requiredLabel is required");
 *     default: return refuse("requiredLabel must be a string");
 *   }
 *
 * Header-only C99 (every function is static inline), on abi.h alone: no ABI change, so it works
 * with every 1.x host. A pointer is RFC 6901: "" is the whole document, "/a/b" member b of member
 * a, "/list/0" the first element, "~1" and "~0" stand for '/' and '~' in a name. Each call checks
 * the whole text is one well-formed JSON value (args are small; nesting deeper than
 * SCHEDHOST_ARGS_MAX_DEPTH is refused as malformed), then walks to the value. Nothing is
 * allocated; results are written only on SCHEDHOST_ARGS_OK. Thread-safe: no state. */
#ifndef SCHEDHOST_JSON_ARGS_H
#define SCHEDHOST_JSON_ARGS_H

#include <schedhost/abi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCHEDHOST_ARGS_MAX_DEPTH 64

typedef enum schedhost_args_result {
  SCHEDHOST_ARGS_OK = 0,
  SCHEDHOST_ARGS_ABSENT = 1,       /* nothing at the pointer (no such member or index) */
  SCHEDHOST_ARGS_WRONG_TYPE = 2,   /* a value of another type, or a pointer through a scalar */
  SCHEDHOST_ARGS_OUT_OF_RANGE = 3, /* a number that is not an int64, or a string longer than buf */
  SCHEDHOST_ARGS_MALFORMED = 4     /* the text is not one JSON value */
} schedhost_args_result_t;

typedef enum schedhost_args_type {
  SCHEDHOST_ARGS_NULL = 0,
  SCHEDHOST_ARGS_BOOL = 1,
  SCHEDHOST_ARGS_NUMBER = 2,
  SCHEDHOST_ARGS_STRING = 3,
  SCHEDHOST_ARGS_ARRAY = 4,
  SCHEDHOST_ARGS_OBJECT = 5
} schedhost_args_type_t;

/* -- internals: a validating scanner over [p, end) ------------------------------------------ */

static inline const char* schedhost_args__ws(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    ++p;
  return p;
}

static inline int schedhost_args__hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A "\uXXXX" escape at s: its code unit into *out; false when it is not one. */
static inline bool schedhost_args__u_escape(const char* s, const char* end, unsigned long* out) {
  int i;
  if (end - s < 6 || s[0] != '\\' || s[1] != 'u') return false;
  *out = 0;
  for (i = 2; i < 6; ++i) {
    const int h = schedhost_args__hex(s[i]);
    if (h < 0) return false;
    *out = *out * 16 + (unsigned long)h;
  }
  return true;
}

/* Decodes the next character of a JSON string at *p (after the opening quote) into out as UTF-8
 * bytes; returns their count, 0 at the closing quote (*p then after it), -1 when malformed. */
static inline int schedhost_args__string_char(const char** p, const char* end, char out[4]) {
  const char* s = *p;
  unsigned long cp = 0;
  if (s >= end) return -1;
  if (*s == '"') {
    *p = s + 1;
    return 0;
  }
  if ((unsigned char)*s < 0x20) return -1;
  if (*s != '\\') {
    out[0] = *s;
    *p = s + 1;
    return 1;
  }
  if (s + 1 >= end) return -1;
  switch (s[1]) {
    case '"':
      out[0] = '"';
      break;
    case '\\':
      out[0] = '\\';
      break;
    case '/':
      out[0] = '/';
      break;
    case 'b':
      out[0] = '\b';
      break;
    case 'f':
      out[0] = '\f';
      break;
    case 'n':
      out[0] = '\n';
      break;
    case 'r':
      out[0] = '\r';
      break;
    case 't':
      out[0] = '\t';
      break;
    case 'u':
      if (!schedhost_args__u_escape(s, end, &cp)) return -1;
      s += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair: \uD83D\uDE00 */
        unsigned long low = 0;
        if (!schedhost_args__u_escape(s, end, &low) || low < 0xDC00 || low > 0xDFFF) return -1;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        s += 6;
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return -1;
      }
      *p = s;
      if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
      }
      if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
      }
      if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
      }
      out[0] = (char)(0xF0 | (cp >> 18));
      out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
      out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
      out[3] = (char)(0x80 | (cp & 0x3F));
      return 4;
    default:
      return -1;
  }
  *p = s + 2;
  return 1;
}

/* p at the opening quote; returns the position after the closing quote, NULL when malformed. */
static inline const char* schedhost_args__skip_string(const char* p, const char* end) {
  char bytes[4];
  int n;
  ++p;
  while ((n = schedhost_args__string_char(&p, end, bytes)) > 0) {
  }
  return n == 0 ? p : NULL;
}

static inline const char* schedhost_args__skip_digits(const char* p, const char* end) {
  const char* start = p;
  while (p < end && *p >= '0' && *p <= '9')
    ++p;
  return p == start ? NULL : p;
}

/* A number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static inline const char* schedhost_args__skip_number(const char* p, const char* end) {
  if (p < end && *p == '-') ++p;
  if (p < end && *p == '0') {
    ++p;
  } else if ((p = schedhost_args__skip_digits(p, end)) == NULL) {
    return NULL;
  }
  if (p < end && *p == '.' && (p = schedhost_args__skip_digits(p + 1, end)) == NULL) return NULL;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if ((p = schedhost_args__skip_digits(p, end)) == NULL) return NULL;
  }
  return p;
}

static inline const char* schedhost_args__skip_literal(const char* p, const char* end,
                                                       const char* word) {
  const size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

/* p at a value (after white space); returns the position after it, NULL when malformed. */
static inline const char* schedhost_args__skip_value(const char* p, const char* end) {
  char closers[SCHEDHOST_ARGS_MAX_DEPTH];
  int depth = 0;
  for (;;) { /* one value per turn, then what follows it in its containers */
    p = schedhost_args__ws(p, end);
    if (p >= end) return NULL;
    if (*p == '{' || *p == '[') {
      const char closer = *p == '{' ? '}' : ']';
      if (depth == SCHEDHOST_ARGS_MAX_DEPTH) return NULL;
      closers[depth++] = closer;
      p = schedhost_args__ws(p + 1, end);
      if (p < end && *p == closer) {
        ++p;
        --depth;
      } else if (closer == '}') { /* the first member's name */
        if (p >= end || *p != '"' || (p = schedhost_args__skip_string(p, end)) == NULL) return NULL;
        p = schedhost_args__ws(p, end);
        if (p >= end || *p != ':') return NULL;
        ++p;
        continue;
      } else {
        continue;
      }
    } else if (*p == '"') {
      p = schedhost_args__skip_string(p, end);
    } else if (*p == 't') {
      p = schedhost_args__skip_literal(p, end, "true");
    } else if (*p == 'f') {
      p = schedhost_args__skip_literal(p, end, "false");
    } else if (*p == 'n') {
      p = schedhost_args__skip_literal(p, end, "null");
    } else {
      p = schedhost_args__skip_number(p, end);
    }
    if (p == NULL) return NULL;
    /* A value ended: close containers, or move to the next element or member. */
    for (;;) {
      if (depth == 0) return p;
      p = schedhost_args__ws(p, end);
      if (p >= end) return NULL;
      if (*p == closers[depth - 1]) {
        ++p;
        --depth;
        continue;
      }
      if (*p != ',') return NULL;
      p = schedhost_args__ws(p + 1, end);
      if (closers[depth - 1] == '}') {
        if (p >= end || *p != '"' || (p = schedhost_args__skip_string(p, end)) == NULL) return NULL;
        p = schedhost_args__ws(p, end);
        if (p >= end || *p != ':') return NULL;
        ++p;
      }
      break;
    }
  }
}

/* True when the JSON string at s (its opening quote) equals the pointer token [t, t_end), whose
 * "~1" and "~0" stand for '/' and '~'. */
static inline bool schedhost_args__name_is(const char* s, const char* end, const char* t,
                                           const char* t_end) {
  char bytes[4];
  int n, i;
  ++s;
  while ((n = schedhost_args__string_char(&s, end, bytes)) > 0) {
    for (i = 0; i < n; ++i) {
      char want;
      if (t == t_end) return false;
      want = *t++;
      if (want == '~' && t < t_end) want = *t++ == '1' ? '/' : '~';
      if (bytes[i] != want) return false;
    }
  }
  return n == 0 && t == t_end;
}

/* The value at pointer within json: *at points at its first character. */
static inline schedhost_args_result_t schedhost_args__find(schedhost_str_t json,
                                                           const char* pointer, const char** at,
                                                           const char** end_out) {
  const char* end = json.data + json.len;
  const char* p = schedhost_args__ws(json.data, end);
  const char* after;
  if (json.data == NULL || p >= end) return SCHEDHOST_ARGS_MALFORMED;
  after = schedhost_args__skip_value(p, end);
  if (after == NULL || schedhost_args__ws(after, end) != end) return SCHEDHOST_ARGS_MALFORMED;
  if (pointer == NULL) pointer = "";
  while (*pointer != '\0') {
    const char* token;
    const char* token_end;
    if (*pointer != '/') return SCHEDHOST_ARGS_ABSENT; /* not a JSON pointer */
    token = pointer + 1;
    token_end = strchr(token, '/');
    if (token_end == NULL) token_end = token + strlen(token);
    pointer = token_end;
    if (*p == '{') {
      bool found = false;
      p = schedhost_args__ws(p + 1, end);
      while (*p != '}') {
        const bool match = schedhost_args__name_is(p, end, token, token_end);
        p = schedhost_args__ws(schedhost_args__skip_string(p, end), end) + 1; /* past ':' */
        p = schedhost_args__ws(p, end);
        if (match) {
          found = true;
          break;
        }
        p = schedhost_args__ws(schedhost_args__skip_value(p, end), end);
        if (*p == ',') p = schedhost_args__ws(p + 1, end);
      }
      if (!found) return SCHEDHOST_ARGS_ABSENT;
    } else if (*p == '[') {
      size_t index = 0;
      const char* t;
      if (token == token_end || (*token == '0' && token_end - token > 1)) {
        return SCHEDHOST_ARGS_ABSENT;
      }
      for (t = token; t < token_end; ++t) {
        if (*t < '0' || *t > '9' || index > (SIZE_MAX - 9) / 10) return SCHEDHOST_ARGS_ABSENT;
        index = index * 10 + (size_t)(*t - '0');
      }
      p = schedhost_args__ws(p + 1, end);
      for (;;) {
        if (*p == ']') return SCHEDHOST_ARGS_ABSENT;
        if (index-- == 0) break;
        p = schedhost_args__ws(schedhost_args__skip_value(p, end), end);
        if (*p == ',') p = schedhost_args__ws(p + 1, end);
      }
    } else {
      return SCHEDHOST_ARGS_WRONG_TYPE; /* a pointer through a string, number, ... */
    }
  }
  *at = p;
  if (end_out != NULL) *end_out = end;
  return SCHEDHOST_ARGS_OK;
}

/* Copies the JSON string at s (its opening quote) unescaped and NUL-terminated into buf. */
static inline schedhost_args_result_t schedhost_args__copy_string(const char* s, const char* end,
                                                                  char* buf, size_t size) {
  size_t used = 0;
  char bytes[4];
  int n, i;
  ++s;
  while ((n = schedhost_args__string_char(&s, end, bytes)) > 0) {
    if (used + (size_t)n >= size) return SCHEDHOST_ARGS_OUT_OF_RANGE;
    for (i = 0; i < n; ++i)
      buf[used++] = bytes[i];
  }
  if (size == 0) return SCHEDHOST_ARGS_OUT_OF_RANGE;
  buf[used] = '\0';
  return SCHEDHOST_ARGS_OK;
}

/* -- the reader ----------------------------------------------------------------------------- */

/* The value at pointer, as its JSON text (e.g. to quote it in a refusal). */
static inline schedhost_args_result_t schedhost_args_find(schedhost_str_t json, const char* pointer,
                                                          schedhost_str_t* value) {
  const char* at;
  const char* end;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, &end);
  if (r != SCHEDHOST_ARGS_OK) return r;
  value->data = at;
  value->len = (size_t)(schedhost_args__skip_value(at, end) - at);
  return SCHEDHOST_ARGS_OK;
}

/* The type of the value at pointer. */
static inline schedhost_args_result_t schedhost_args_type(schedhost_str_t json, const char* pointer,
                                                          schedhost_args_type_t* type) {
  const char* at;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, NULL);
  if (r != SCHEDHOST_ARGS_OK) return r;
  switch (*at) {
    case '{':
      *type = SCHEDHOST_ARGS_OBJECT;
      break;
    case '[':
      *type = SCHEDHOST_ARGS_ARRAY;
      break;
    case '"':
      *type = SCHEDHOST_ARGS_STRING;
      break;
    case 't':
    case 'f':
      *type = SCHEDHOST_ARGS_BOOL;
      break;
    case 'n':
      *type = SCHEDHOST_ARGS_NULL;
      break;
    default:
      *type = SCHEDHOST_ARGS_NUMBER;
      break;
  }
  return SCHEDHOST_ARGS_OK;
}

/* A string, unescaped (\uXXXX as UTF-8) and NUL-terminated into buf; OUT_OF_RANGE when it needs
 * more than size bytes with its NUL. */
static inline schedhost_args_result_t schedhost_args_string(schedhost_str_t json,
                                                            const char* pointer, char* buf,
                                                            size_t size) {
  const char* at;
  const char* end;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, &end);
  if (r != SCHEDHOST_ARGS_OK) return r;
  if (*at != '"') return SCHEDHOST_ARGS_WRONG_TYPE;
  return schedhost_args__copy_string(at, end, buf, size);
}

/* An integer in int64 range, written without fraction or exponent (3, -7; not 3.0 or 1e3). */
static inline schedhost_args_result_t schedhost_args_int64(schedhost_str_t json,
                                                           const char* pointer, int64_t* out) {
  const char* at;
  const char* end;
  bool negative;
  uint64_t magnitude = 0;
  const uint64_t limit = (uint64_t)INT64_MAX;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, &end);
  if (r != SCHEDHOST_ARGS_OK) return r;
  if (*at != '-' && (*at < '0' || *at > '9')) return SCHEDHOST_ARGS_WRONG_TYPE;
  negative = *at == '-';
  if (negative) ++at;
  for (; at < end && *at >= '0' && *at <= '9'; ++at) {
    const uint64_t digit = (uint64_t)(*at - '0');
    if (magnitude > (limit + 1 - digit) / 10) return SCHEDHOST_ARGS_OUT_OF_RANGE;
    magnitude = magnitude * 10 + digit;
  }
  if (at < end && (*at == '.' || *at == 'e' || *at == 'E')) return SCHEDHOST_ARGS_OUT_OF_RANGE;
  if (!negative && magnitude > limit) return SCHEDHOST_ARGS_OUT_OF_RANGE;
  *out = negative ? (magnitude == limit + 1 ? INT64_MIN : -(int64_t)magnitude) : (int64_t)magnitude;
  return SCHEDHOST_ARGS_OK;
}

/* true or false. */
static inline schedhost_args_result_t schedhost_args_bool(schedhost_str_t json, const char* pointer,
                                                          bool* out) {
  const char* at;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, NULL);
  if (r != SCHEDHOST_ARGS_OK) return r;
  if (*at != 't' && *at != 'f') return SCHEDHOST_ARGS_WRONG_TYPE;
  *out = *at == 't';
  return SCHEDHOST_ARGS_OK;
}

/* The number of elements of an array, or of members of an object. */
static inline schedhost_args_result_t schedhost_args_length(schedhost_str_t json,
                                                            const char* pointer, size_t* out) {
  const char* at;
  const char* end;
  size_t count = 0;
  char closer;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, &end);
  if (r != SCHEDHOST_ARGS_OK) return r;
  if (*at != '{' && *at != '[') return SCHEDHOST_ARGS_WRONG_TYPE;
  closer = *at == '{' ? '}' : ']';
  at = schedhost_args__ws(at + 1, end);
  while (*at != closer) {
    if (closer == '}') at = schedhost_args__ws(schedhost_args__skip_string(at, end), end) + 1;
    at = schedhost_args__ws(schedhost_args__skip_value(schedhost_args__ws(at, end), end), end);
    if (*at == ',') at = schedhost_args__ws(at + 1, end);
    ++count;
  }
  *out = count;
  return SCHEDHOST_ARGS_OK;
}

/* The name of the index-th member of the object at pointer (in the text's order), unescaped and
 * NUL-terminated into buf: to refuse names a plugin does not know. */
static inline schedhost_args_result_t schedhost_args_name(schedhost_str_t json, const char* pointer,
                                                          size_t index, char* buf, size_t size) {
  const char* at;
  const char* end;
  const schedhost_args_result_t r = schedhost_args__find(json, pointer, &at, &end);
  if (r != SCHEDHOST_ARGS_OK) return r;
  if (*at != '{') return SCHEDHOST_ARGS_WRONG_TYPE;
  at = schedhost_args__ws(at + 1, end);
  for (;;) {
    const char* name = at;
    if (*at == '}') return SCHEDHOST_ARGS_ABSENT;
    at = schedhost_args__ws(schedhost_args__skip_string(at, end), end) + 1;
    if (index-- == 0) return schedhost_args__copy_string(name, end, buf, size);
    at = schedhost_args__ws(schedhost_args__skip_value(schedhost_args__ws(at, end), end), end);
    if (*at == ',') at = schedhost_args__ws(at + 1, end);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* SCHEDHOST_JSON_ARGS_H */

//! The plugin's args: `{"label": "...", "value": "..."}`, read without a JSON crate.
//!
//! The host hands over pluginConfig[].args as compact JSON. This reader accepts exactly a JSON
//! object whose values are strings (with JSON escapes) and refuses anything else by name.

pub struct Args {
    pub label: Option<String>,
    pub value: Option<String>,
}

pub fn parse(text: &str) -> Result<Args, String> {
    let mut r = Reader {
        s: text.as_bytes(),
        i: 0,
    };
    let mut args = Args {
        label: None,
        value: None,
    };
    r.skip_ws();
    r.expect(b'{')
        .map_err(|_| format!("args must be an object with label and value, got {text}"))?;
    r.skip_ws();
    if r.peek() == Some(b'}') {
        r.i += 1;
    } else {
        loop {
            r.skip_ws();
            let key = r.string()?;
            r.skip_ws();
            r.expect(b':')?;
            r.skip_ws();
            if r.peek() != Some(b'"') {
                return Err(format!("{key} must be a string"));
            }
            let value = r.string()?;
            match key.as_str() {
                "label" => args.label = Some(value),
                "value" => args.value = Some(value),
                _ => {
                    return Err(format!(
                        "unknown arg \"{key}\": the args are label and value"
                    ))
                }
            }
            r.skip_ws();
            match r.next() {
                Some(b',') => continue,
                Some(b'}') => break,
                _ => return Err(format!("args are not valid JSON: {text}")),
            }
        }
    }
    r.skip_ws();
    if r.i != r.s.len() {
        return Err(format!("args are not valid JSON: {text}"));
    }
    Ok(args)
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += 1;
        c
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.next() == Some(c) {
            Ok(())
        } else {
            Err(format!("args are not valid JSON: expected '{}'", c as char))
        }
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .s
            .get(self.i..self.i + 4)
            .ok_or("args: truncated \\u escape")?;
        self.i += 4;
        let text = std::str::from_utf8(digits).map_err(|_| "args: bad \\u escape")?;
        u32::from_str_radix(text, 16).map_err(|_| "args: bad \\u escape".to_string())
    }
    /// A JSON string at the cursor, unescaped.
    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.next().ok_or("args: unterminated string")? {
                b'"' => break,
                b'\\' => match self.next().ok_or("args: unterminated string")? {
                    b'"' => out.push(b'"'),
                    b'\\' => out.push(b'\\'),
                    b'/' => out.push(b'/'),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'u' => {
                        let mut code = self.hex4()?;
                        if (0xD800..0xDC00).contains(&code) {
                            // A surrogate pair: \uD83D\uDE00.
                            if self.next() != Some(b'\\') || self.next() != Some(b'u') {
                                return Err("args: lone surrogate in \\u escape".to_string());
                            }
                            let low = self.hex4()?;
                            if !(0xDC00..0xE000).contains(&low) {
                                return Err("args: lone surrogate in \\u escape".to_string());
                            }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        }
                        let c = char::from_u32(code).ok_or("args: bad \\u escape")?;
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    _ => return Err("args: bad escape in string".to_string()),
                },
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| "args are not valid UTF-8".to_string())
    }
}

// Stand-in for powershell.exe, built only into the Wine prefix the Windows
// test suite runs in (scripts/install-windows.mjs), never shipped.
//
// Real Windows runs Windows PowerShell 5.1, whose Get-CimInstance asks WMI's
// CIM provider for Win32_Process objects. Wine 8's powershell.exe is an empty
// stub (prints nothing, exits 0), so drover would read every process as gone.
// This program answers the same Win32_Process queries from the Win32 API that
// CIM itself reads -- CreateToolhelp32Snapshot for ProcessId, ParentProcessId
// and Name, GetProcessTimes for CreationDate -- and prints what PowerShell
// prints for them: CreationDate carries CIM's microsecond precision, so
// .ToFileTimeUtc() is the creation FILETIME rounded down to 10 units.
//
// It understands a small subset of PowerShell, enough for the generic queries
// a program asks of Win32_Process, not just drover's own strings:
//   Get-CimInstance [-ClassName] Win32_Process [-Filter '<WQL condition>'] [-ErrorAction Stop]
//   Get-CimInstance -Query 'SELECT * FROM Win32_Process [WHERE <WQL condition>]'
//     (gcim for Get-CimInstance; conditions: Prop = value / <> value, joined by AND and OR;
//      props ProcessId, ParentProcessId, Name)
//   (<query>).Prop               -- member enumeration: one line per object
//   <query> | ForEach-Object { [if ($_.CreationDate) {] '<format>' -f $_.Prop, ... [}] }
//   statements separated by ';'
// where Prop is ProcessId, ParentProcessId, Name or CreationDate.ToFileTimeUtc().
// Scripts come from -Command (the rest of the arguments, joined by spaces as
// PowerShell does), -EncodedCommand (base64 of UTF-16LE) or, for -Command -,
// stdin, one statement per line, answered line by line (a long-lived query
// process). Anything else is refused on stderr with exit 1 -- loudly, unlike
// the stub -- so a test can never pass on an empty answer.
//
// If DROVER_TEST_POWERSHELL_LOG names a file, each start appends its command
// line there: how the Windows suite and the bench count PowerShell starts.

#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <fcntl.h>
#include <io.h>

typedef struct {
  DWORD pid, ppid;
  char name[MAX_PATH * 3];
  int hasCreation;
  unsigned long long creation; // FILETIME, 100 ns units since 1601, rounded to CIM's microseconds
} Proc;

static Proc *procs;
static int nprocs;

static void fail(const char *what, const char *script) {
  fprintf(stderr, "powershell.exe (drover test stand-in): %s: %s\r\n", what, script);
}

static int snapshot(void) {
  HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE) return 0;
  int cap = 256;
  procs = malloc(sizeof(Proc) * cap);
  nprocs = 0;
  PROCESSENTRY32W entry;
  entry.dwSize = sizeof entry;
  for (BOOL ok = Process32FirstW(snap, &entry); ok; ok = Process32NextW(snap, &entry)) {
    if (nprocs == cap) procs = realloc(procs, sizeof(Proc) * (cap *= 2));
    Proc *p = &procs[nprocs];
    p->pid = entry.th32ProcessID;
    p->ppid = entry.th32ParentProcessID;
    WideCharToMultiByte(CP_UTF8, 0, entry.szExeFile, -1, p->name, sizeof p->name, NULL, NULL);
    p->hasCreation = 0;
    // CIM gives no CreationDate for the idle process (pid 0); nor can anyone open it.
    HANDLE h = p->pid ? OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p->pid) : NULL;
    if (h) {
      FILETIME created, exited, kernel, user;
      DWORD code = 0;
      // A process that has exited but whose handle someone still holds is no longer listed by CIM.
      if (GetExitCodeProcess(h, &code) && code != STILL_ACTIVE) {
        CloseHandle(h);
        continue;
      }
      if (GetProcessTimes(h, &created, &exited, &kernel, &user)) {
        unsigned long long ft = ((unsigned long long)created.dwHighDateTime << 32) | created.dwLowDateTime;
        p->creation = ft - ft % 10;
        p->hasCreation = 1;
      }
      CloseHandle(h);
    }
    nprocs++;
  }
  CloseHandle(snap);
  return 1;
}

// ---- a tiny scanner over the script text ----

static const char *skipws(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/** Case-insensitive prefix match of a word; returns the text after it or NULL. */
static const char *word(const char *s, const char *w) {
  s = skipws(s);
  size_t n = strlen(w);
  if (_strnicmp(s, w, n) != 0) return NULL;
  char next = s[n];
  if (isalnum((unsigned char)w[n - 1]) && (isalnum((unsigned char)next) || next == '_' || next == '-')) return NULL;
  return s + n;
}

/** A quoted string ('…' with '' for a quote, or "…"): copied into out. */
static const char *quoted(const char *s, char *out, size_t cap) {
  s = skipws(s);
  char q = *s;
  if (q != '\'' && q != '"') return NULL;
  size_t n = 0;
  for (s++;; s++) {
    if (!*s) return NULL;
    if (*s == q) {
      if (q == '\'' && s[1] == '\'') {
        s++;
      } else {
        s++;
        break;
      }
    }
    if (n + 1 < cap) out[n++] = *s;
  }
  out[n] = 0;
  return s;
}

// ---- WQL conditions: OR of ANDs of Prop (=|<>|!=) value ----

typedef struct {
  char prop[32];
  int negate;
  char value[MAX_PATH];
} Atom;

static int propValue(const Proc *p, const char *prop, char *out, size_t cap) {
  if (!_stricmp(prop, "ProcessId") || !_stricmp(prop, "Handle")) snprintf(out, cap, "%lu", (unsigned long)p->pid);
  else if (!_stricmp(prop, "ParentProcessId")) snprintf(out, cap, "%lu", (unsigned long)p->ppid);
  else if (!_stricmp(prop, "Name") || !_stricmp(prop, "Caption")) snprintf(out, cap, "%s", p->name);
  else return 0;
  return 1;
}

/** Whether p matches the condition text (NULL: no condition). -1 when the condition cannot be read. */
static int matches(const Proc *p, const char *cond) {
  if (!cond) return 1;
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", cond);
  // Walk the disjuncts: split on " OR " (any case), then on " AND ".
  int any = 0;
  char *rest = buf;
  for (;;) {
    char *or = NULL;
    for (char *s = rest; *s; s++)
      if (isspace((unsigned char)*s) && !_strnicmp(s + 1, "OR", 2) && isspace((unsigned char)s[3])) { or = s; break; }
    if (or) *or = 0;
    int all = 1;
    char *conj = rest;
    for (;;) {
      char *and = NULL;
      for (char *s = conj; *s; s++)
        if (isspace((unsigned char)*s) && !_strnicmp(s + 1, "AND", 3) && isspace((unsigned char)s[4])) { and = s; break; }
      if (and) *and = 0;
      Atom a = {0};
      const char *s = skipws(conj);
      while (*s == '(') s = skipws(s + 1);
      size_t n = 0;
      while ((isalnum((unsigned char)*s) || *s == '_') && n + 1 < sizeof a.prop) a.prop[n++] = *s++;
      a.prop[n] = 0;
      s = skipws(s);
      if (*s == '=') s++;
      else if (!strncmp(s, "<>", 2) || !strncmp(s, "!=", 2)) { a.negate = 1; s += 2; }
      else return -1;
      s = skipws(s);
      if (*s == '\'' || *s == '"') {
        s = quoted(s, a.value, sizeof a.value);
        if (!s) return -1;
      } else {
        n = 0;
        while ((isalnum((unsigned char)*s) || *s == '.') && n + 1 < sizeof a.value) a.value[n++] = *s++;
        a.value[n] = 0;
      }
      s = skipws(s);
      while (*s == ')') s = skipws(s + 1);
      if (*s || !a.prop[0] || !a.value[0]) return -1;
      char have[MAX_PATH * 3];
      if (!propValue(p, a.prop, have, sizeof have)) return -1;
      int eq = !_stricmp(have, a.value);
      if (eq == a.negate) all = 0;
      if (!and) break;
      conj = and + 4;
    }
    if (all) any = 1;
    if (!or) break;
    rest = or + 3;
  }
  return any;
}

// ---- the query: Get-CimInstance … ----

/** Parses a Get-CimInstance call at s; sets *cond (NULL = all) and returns the text after it, or NULL. */
static const char *cimQuery(const char *s, char *condBuf, size_t cap, const char **cond) {
  const char *t = word(s, "Get-CimInstance");
  if (!t) t = word(s, "gcim");
  if (!t) return NULL;
  s = t;
  int haveClass = 0;
  *cond = NULL;
  for (;;) {
    s = skipws(s);
    if ((t = word(s, "-ClassName")) || (t = word(s, "-Class"))) s = t;
    if ((t = word(s, "Win32_Process"))) {
      s = t;
      haveClass = 1;
    } else if ((t = word(s, "-Filter"))) {
      s = quoted(t, condBuf, cap);
      if (!s) return NULL;
      *cond = condBuf;
    } else if ((t = word(s, "-Query"))) {
      char q[4096];
      s = quoted(t, q, sizeof q);
      if (!s) return NULL;
      const char *r = word(q, "SELECT");
      if (!r) return NULL;
      r = skipws(r);
      const char *from = NULL;
      for (const char *x = r; *x; x++)
        if (isspace((unsigned char)x[-1]) && !_strnicmp(x, "FROM", 4) && isspace((unsigned char)x[4])) { from = x; break; }
      if (!from || !(r = word(from + 4, "Win32_Process"))) return NULL;
      haveClass = 1;
      r = skipws(r);
      if (*r) {
        if (!(r = word(r, "WHERE"))) return NULL;
        snprintf(condBuf, cap, "%s", skipws(r));
        *cond = condBuf;
      }
    } else if ((t = word(s, "-ErrorAction"))) {
      s = skipws(t);
      while (isalpha((unsigned char)*s)) s++;
    } else {
      break;
    }
  }
  return haveClass ? s : NULL;
}

static int printProp(const Proc *p, const char *prop, FILE *out) {
  if (!_stricmp(prop, "CreationDate.ToFileTimeUtc()")) {
    if (!p->hasCreation) return -1; // $null.ToFileTimeUtc(): an error in PowerShell
    fprintf(out, "%llu", p->creation);
    return 1;
  }
  char v[MAX_PATH * 3];
  if (!propValue(p, prop, v, sizeof v)) return 0;
  fputs(v, out);
  return 1;
}

/** Reads `$_.Prop` or `.Prop` (with an optional .ToFileTimeUtc()) into out. */
static const char *propRef(const char *s, char *out, size_t cap) {
  s = skipws(s);
  if (!strncmp(s, "$_", 2)) s += 2;
  if (*s != '.') return NULL;
  s++;
  size_t n = 0;
  while ((isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '(' || *s == ')') && n + 1 < cap) {
    // Stop before a ')' that closes something other than the method call's "()".
    if (*s == ')' && (n == 0 || out[n - 1] != '(')) break;
    out[n++] = *s++;
  }
  out[n] = 0;
  return n ? s : NULL;
}

/** Runs one statement; returns the exit status it leaves (0 ok, 1 error). */
static int statement(const char *script) {
  const char *s = skipws(script);
  if (!*s) return 0;
  char condBuf[4096];
  const char *cond;
  char prop[64];
  int paren = *s == '(';
  const char *after = cimQuery(paren ? s + 1 : s, condBuf, sizeof condBuf, &cond);
  if (!after) { fail("not a Win32_Process query this stand-in knows", script); return 1; }
  if (!snapshot()) { fail("no process snapshot", script); return 1; }
  // Check the condition once on a real entry: an unreadable filter is CIM's "Invalid query".
  if (nprocs > 0 && matches(&procs[0], cond) < 0) { fail("Invalid query", script); return 1; }
  if (paren) {
    after = skipws(after);
    if (*after != ')' || !(after = propRef(after + 1, prop, sizeof prop)) || *skipws(after)) {
      fail("unsupported expression", script);
      return 1;
    }
    int found = 0;
    for (int i = 0; i < nprocs; i++) {
      if (matches(&procs[i], cond) != 1) continue;
      found = 1;
      int r = printProp(&procs[i], prop, stdout);
      if (r == 0) { fail("unknown property", prop); return 1; }
      if (r > 0) fputs("\r\n", stdout);
      else return 1; // a null CreationDate: "You cannot call a method on a null-valued expression."
    }
    if (!found && strchr(prop, '(')) {
      // (nothing).CreationDate.ToFileTimeUtc() calls a method on $null: PowerShell's error, exit 1.
      fail("You cannot call a method on a null-valued expression", script);
      return 1;
    }
    return 0;
  }
  // <query> | ForEach-Object { [if ($_.CreationDate) {] 'format' -f $_.A, $_.B [}] }
  const char *t = skipws(after);
  if (*t != '|') { fail("unsupported pipeline (this stand-in does not format tables)", script); return 1; }
  t = skipws(t + 1);
  const char *u = word(t, "ForEach-Object");
  if (!u) u = word(t, "foreach");
  if (!u && *t == '%') u = t + 1;
  if (!u || *(u = skipws(u)) != '{') { fail("unsupported pipeline", script); return 1; }
  u = skipws(u + 1);
  int onlyDated = 0;
  const char *v = word(u, "if");
  if (v) {
    v = skipws(v);
    if (*v != '(' || !(v = propRef(v + 1, prop, sizeof prop)) || _stricmp(prop, "CreationDate") || *(v = skipws(v)) != ')') {
      fail("unsupported condition", script);
      return 1;
    }
    v = skipws(v + 1);
    if (*v != '{') { fail("unsupported condition", script); return 1; }
    onlyDated = 1;
    u = v + 1;
  }
  char format[512];
  if (!(u = quoted(u, format, sizeof format)) || !(u = word(u, "-f"))) { fail("unsupported script block", script); return 1; }
  char props[10][64];
  int nprops = 0;
  for (;;) {
    if (nprops == 10 || !(u = propRef(u, props[nprops], sizeof props[0]))) { fail("unsupported -f operand", script); return 1; }
    nprops++;
    u = skipws(u);
    if (*u != ',') break;
    u++;
  }
  for (int closing = onlyDated ? 2 : 1; closing > 0; closing--) {
    u = skipws(u);
    if (*u != '}') { fail("unsupported script block", script); return 1; }
    u++;
  }
  if (*skipws(u)) { fail("unsupported pipeline", script); return 1; }
  for (int i = 0; i < nprocs; i++) {
    const Proc *p = &procs[i];
    if (matches(p, cond) != 1 || (onlyDated && !p->hasCreation)) continue;
    for (const char *f = format; *f; f++) {
      if (*f == '{' && isdigit((unsigned char)f[1])) {
        int k = atoi(f + 1);
        const char *close = strchr(f, '}');
        if (!close || k >= nprops) { fail("bad format", format); return 1; }
        if (printProp(p, props[k], stdout) == 0) { fail("unknown property", props[k]); return 1; }
        f = close;
      } else {
        fputc(*f, stdout);
      }
    }
    fputs("\r\n", stdout);
  }
  return 0;
}

/** Statements separated by ';' outside quotes and braces; the status of the last one, as powershell -Command reports. */
static int script(char *text) {
  int status = 0, depth = 0;
  char q = 0;
  char *start = text;
  for (char *s = text;; s++) {
    if (q) {
      if (*s == q) q = 0;
      else if (!*s) break;
      continue;
    }
    if (*s == '\'' || *s == '"') q = *s;
    else if (*s == '{' || *s == '(') depth++;
    else if (*s == '}' || *s == ')') depth--;
    else if ((*s == ';' && depth == 0) || !*s) {
      char end = *s;
      *s = 0;
      if (*skipws(start)) status = statement(start);
      if (!end) break;
      start = s + 1;
    }
  }
  fflush(stdout);
  return status;
}

static char *narrow(const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *s = malloc(n);
  WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
  return s;
}

static char *decodeBase64Utf16(const char *b64) {
  static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t len = strlen(b64);
  unsigned char *bytes = malloc(len + 2);
  size_t n = 0;
  unsigned bits = 0, acc = 0;
  for (const char *s = b64; *s && *s != '='; s++) {
    const char *at = strchr(alphabet, *s);
    if (!at) continue;
    acc = (acc << 6) | (unsigned)(at - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[n++] = (unsigned char)(acc >> bits);
    }
  }
  bytes[n] = bytes[n + 1] = 0;
  wchar_t *w = malloc((n / 2 + 1) * sizeof(wchar_t));
  memcpy(w, bytes, n);
  w[n / 2] = 0;
  char *s = narrow(w);
  free(bytes);
  free(w);
  return s;
}

int wmain(int argc, wchar_t **argv) {
  // PowerShell ends lines with CRLF; binary mode keeps the C library from doubling the CR.
  _setmode(_fileno(stdout), _O_BINARY);
  const char *logPath = getenv("DROVER_TEST_POWERSHELL_LOG");
  if (logPath && *logPath) {
    FILE *log = fopen(logPath, "ab");
    if (log) {
      char *line = narrow(GetCommandLineW());
      fprintf(log, "%lu %s\n", (unsigned long)GetCurrentProcessId(), line);
      fclose(log);
    }
  }
  size_t cap = 1;
  for (int i = 1; i < argc; i++) cap += wcslen(argv[i]) * 3 + 1;
  char *text = calloc(cap, 1);
  int fromStdin = 0;
  for (int i = 1; i < argc; i++) {
    const wchar_t *a = argv[i];
    if (!_wcsicmp(a, L"-Command") || !_wcsicmp(a, L"-c")) {
      if (i + 1 < argc && !wcscmp(argv[i + 1], L"-")) {
        fromStdin = 1;
        break;
      }
      for (int j = i + 1; j < argc; j++) {
        char *part = narrow(argv[j]);
        if (j > i + 1) strcat(text, " ");
        strcat(text, part);
        free(part);
      }
      break;
    }
    if (!_wcsicmp(a, L"-EncodedCommand") || !_wcsicmp(a, L"-ec") || !_wcsicmp(a, L"-e")) {
      if (i + 1 >= argc) break;
      char *b64 = narrow(argv[i + 1]);
      free(text);
      text = decodeBase64Utf16(b64);
      break;
    }
    if (!_wcsicmp(a, L"-ExecutionPolicy") || !_wcsicmp(a, L"-WindowStyle") || !_wcsicmp(a, L"-OutputFormat") || !_wcsicmp(a, L"-InputFormat")) {
      i++;
      continue;
    }
    if (a[0] == L'-') continue; // -NoProfile, -NonInteractive, -NoLogo …
    // A bare first argument is a -Command script too.
    for (int j = i; j < argc; j++) {
      char *part = narrow(argv[j]);
      if (j > i) strcat(text, " ");
      strcat(text, part);
      free(part);
    }
    break;
  }
  if (!fromStdin) return script(text);
  // -Command -: one statement per line, each answered and flushed before the next is read.
  char line[65536];
  int status = 0;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    status = script(line);
  }
  return status;
}

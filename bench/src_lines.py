#!/usr/bin/env python3
# src_lines.py REV...: lines of src/**/*.rs at each git revision, split into code and inline test
# modules (from a `#[cfg(test)] mod` line to the end of its file; files named tests.rs or
# fixtures.rs count as tests). Issue 18 measures its growth with it.
import subprocess, sys, re
def count(rev):
    files = [f for f in subprocess.run(["git","ls-tree","-r","--name-only",rev,"src"],capture_output=True,text=True).stdout.split() if f.endswith(".rs")]
    code = test = 0
    for f in files:
        text = subprocess.run(["git","show",f"{rev}:{f}"],capture_output=True,text=True).stdout.split("\n")
        if text and text[-1] == "": text.pop()
        n = len(text); cut = n
        for i,l in enumerate(text):
            if l.strip() == "#[cfg(test)]" and i+1 < n and re.match(r"\s*(pub(\(crate\))? )?mod \w+", text[i+1]):
                cut = i; break
        # a file that is a test module in its own right (e.g. opengen/tests.rs)
        if f.endswith("/tests.rs") or f.endswith("/fixtures.rs"): cut = 0
        code += cut; test += n - cut
    print(f"{rev}: total {code+test}, code {code}, inline tests {test}")

for rev in sys.argv[1:]:
    count(rev)

import glob, sys
from gradlib.lint import lint
from fix_programs import REPORTS, UNSEEN_37R
hit=[r.name for r in REPORTS if r.name in UNSEEN_37R and r.line in {f.line for f in lint(r.source)}]
print('caught', len(hit), 'of', len(UNSEEN_37R), hit)
bad=[]
for f in sorted(glob.glob('lint_corpus/correct/*.py')+glob.glob('lint_corpus/unseen/correct/*.py')):
    fs=lint(open(f).read())
    if fs: bad.append((f,[(x.rule,x.line) for x in fs]))
print('correct with findings', bad)
miss=[]
import re
for f in sorted(glob.glob('lint_corpus/broken/*.py')+glob.glob('lint_corpus/unseen/broken/*.py')):
    src=open(f).read(); fs={(x.line,x.rule) for x in lint(src)}
    exp={(i,m.group(1)) for i,l in enumerate(src.splitlines(),1) for m in [re.search(r'# <- (GT\d+)',l)] if m}
    if exp and not exp <= fs: miss.append(f)
print('broken missed', miss)
lost=[r.name for r in REPORTS if r.rule and (r.line, r.rule) not in {(f.line,f.rule) for f in lint(r.source)}]
print('reports not on labelled line/rule', len(lost), lost[:40])

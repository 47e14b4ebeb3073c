import sys, json, subprocess, collections
from urllib.parse import urlsplit
bin_, rjpath = sys.argv[1], sys.argv[2]
jobsfile = json.load(open('/work/shared/webs/dev-alltopics.jobs.json'))
lab={}; bytopic=collections.Counter()
for l in open('/work/shared/webs/dev-alltopics.sites.tsv'):
    f=l.rstrip('\n').split('\t')
    if f[0]!='host': lab[f[0]]=f[1]; bytopic[f[1]]+=1
rj=collections.defaultdict(dict)
for l in open(rjpath):
    j,home,rel,conf=l.split(); rj[int(j)][urlsplit(home).netloc]=rel=='1'
res=[]
for j in sorted(rj):
    out=subprocess.run([bin_,'db','psql','-At','-F','|','-c',f"select topic, body::text from jobs where id={j}"],capture_output=True,text=True).stdout.strip()
    t, body = out.split('|',1); body=json.loads(body)
    given={urlsplit(u).netloc for k in ('relevant_sites','other_sites','start_sites') for u in body.get(k,[])}
    out=subprocess.run([bin_,'db','psql','-At','-F','|','-c',f"select host, relevant from sites where job_id={j} and state='examined' and role not like 'train%'"],capture_output=True,text=True).stdout
    crawl={h:r=='t' for h,r in (l.split('|') for l in out.strip().split('\n') if l)}
    truth=bytopic[t]-len([h for h in given if lab.get(h)==t])
    def score(v):
        judged=[h for h,r in v.items() if r and h not in given]
        tp=sum(lab.get(h)==t for h in judged)
        return tp/max(len(judged),1), tp/max(truth,1), len(judged)
    res.append((t, score(crawl), score({h:v for h,v in rj[j].items() if h in crawl})))
for t,a,b in res: print(f"{t:45s} crawl P {a[0]:.3f} R {a[1]:.3f} n {a[2]:3d} | rejudged P {b[0]:.3f} R {b[1]:.3f} n {b[2]:3d}")
import statistics as st
print('mean crawl P %.3f R %.3f | rejudged P %.3f R %.3f' % (st.mean(a[0] for _,a,_ in res), st.mean(a[1] for _,a,_ in res), st.mean(b[0] for _,_,b in res), st.mean(b[1] for _,_,b in res)))
print('worst rejudged P %.3f' % min(b[0] for _,_,b in res))

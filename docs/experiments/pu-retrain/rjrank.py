import sys, json, subprocess, collections
from urllib.parse import urlsplit
bin_, rjpath = sys.argv[1], sys.argv[2]
lab={}
for l in open('/work/shared/webs/dev-alltopics.sites.tsv'):
    f=l.rstrip('\n').split('\t')
    if f[0]!='host': lab[f[0]]=f[1]
rj=collections.defaultdict(list)
for l in open(rjpath):
    j,home,rel,conf=l.split(); rj[int(j)].append((urlsplit(home).netloc,float(conf)))
aps=[]
for j in sorted(rj):
    t=subprocess.run([bin_,'db','psql','-At','-c',f"select topic from jobs where id={j}"],capture_output=True,text=True).stdout.strip()
    xs=sorted(rj[j],key=lambda x:-x[1])
    on=[lab.get(h)==t for h,_ in xs]
    # average precision
    hits=0; ap=0
    for i,o in enumerate(on):
        if o: hits+=1; ap+=hits/(i+1)
    ap/=max(sum(on),1)
    aps.append(ap)
    pos=[c for (h,c),o in zip(xs,on) if o]; neg=[c for (h,c),o in zip(xs,on) if not o]
    import statistics as st
    print(f"{t:42s} AP {ap:.3f} on {len(pos):3d} med conf {st.median(pos) if pos else 0:.3f} | off {len(neg):3d} med {st.median(neg) if neg else 0:.3f}  top10 {sum(on[:10])}")
print('mean AP %.3f'%(sum(aps)/len(aps)))

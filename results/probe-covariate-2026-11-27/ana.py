import os,sys,math,statistics as st
D=os.environ.get("O",".")
blk=float(sys.argv[1]) if len(sys.argv)>1 else 1.0
dev=[tuple(map(float,l.split())) for l in open(D+'/dev.out')]
pr=[tuple(map(float,l.split())) for l in open(D+'/probe.out')]
t0=float(open(D+'/t0').read())+1.0
tend=min(dev[-1][0],pr[-1][0])-1.5
def interp(ts,t):
    # device bytes at time t by linear interpolation
    for i in range(1,len(ts)):
        if ts[i][0]>=t:
            a,b=ts[i-1],ts[i]; f=(t-a[0])/(b[0]-a[0]); return a[1]+f*(b[1]-a[1])
r=[];p=[]
t=t0
while t+blk<=tend:
    r.append((interp(dev,t+blk)-interp(dev,t))/blk)
    sel=[x for x in pr if t< x[0]<=t+blk]
    p.append(sum(x[1] for x in sel)/max(1e-9,sum(x[2] for x in sel)))
    t+=blk
lr=[math.log(x) for x in r]; lp=[math.log(x) for x in p]
dr=[lr[i+1]-lr[i] for i in range(len(lr)-1)]; dp=[lp[i+1]-lp[i] for i in range(len(lp)-1)]
def corr(a,b):
    ma,mb=st.mean(a),st.mean(b); return sum((x-ma)*(y-mb) for x,y in zip(a,b))/math.sqrt(sum((x-ma)**2 for x in a)*sum((y-mb)**2 for y in b))
print(f'blocks {len(r)} of {blk}s: path MB/s median {st.median(r)/2**20:.0f} sd(dln) {st.stdev(dr)*100:.1f}%  probe sd(dln) {st.stdev(dp)*100:.1f}%  corr(dln) {corr(dr,dp):.2f} corr(levels) {corr(lr,lp):.2f}')
if len(sys.argv)>2:
    for a,b in zip(r,p): print(f'{a/2**20:.0f} {b/1e9:.2f}')

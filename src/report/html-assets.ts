/**
 * The HTML report's inline assets: its style sheet and its one small script, with the hash by which the
 * page's Content-Security-Policy admits that script and nothing else (src/report/html.ts).
 */
import { createHash } from 'node:crypto';

/** The report's inline style sheet. */
export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--ok:#1a7f37;--bad:#cf222e;--adv:#9a6700;--skip:#6e7781;--harn:#8250df;--known:#0550ae;--none:#afb8c1;--mono:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI","DejaVu Sans",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--soft)}
main{max-width:1280px;margin:0 auto;padding:0 24px 48px}
nav{position:sticky;top:0;z-index:5;background:#24292f;color:#fff;padding:8px 24px;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
nav strong{font-size:15px;margin-right:8px}nav a{color:#d0d7de;text-decoration:none}nav a:hover{color:#fff}
nav .nb{display:inline-block;min-width:18px;padding:0 6px;margin-left:4px;border-radius:9px;background:#57606a;color:#fff;font-size:12px;text-align:center}
section{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:18px 0}
h2{font-size:18px;margin:0 0 12px}h2 .muted{font-size:13px;font-weight:400;margin-left:6px}h3{font-size:15px;margin:0;display:inline}h4{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:10px 0 6px}
code,pre,.rid,.method{font-family:var(--mono);font-size:12.5px}
pre{margin:0;white-space:pre-wrap;word-break:break-all;background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px 10px}
a{color:#0969da}.muted{color:var(--muted)}.small{font-size:12px}
.verdict{display:flex;justify-content:space-between;align-items:center;gap:24px;flex-wrap:wrap;color:#fff;border:0;padding:22px 28px}
.v-passed{background:linear-gradient(135deg,#1a7f37,#2da44e)}.v-failed{background:linear-gradient(135deg,#a40e26,#cf222e)}.v-harness_error{background:linear-gradient(135deg,#6639ba,#8250df)}
.v-incomplete{background:linear-gradient(135deg,#7d4e00,#9a6700)}.v-partial{background:linear-gradient(135deg,#0a3069,#0969da)}
.vlabel{text-transform:uppercase;letter-spacing:.12em;font-size:12px;opacity:.85}.vtext{font-size:44px;font-weight:800;line-height:1.1;letter-spacing:.02em}
.vline{font-size:15px;opacity:.95;margin-top:4px}.vids{margin-top:6px;font-size:13px}.vwarn{margin-top:8px;font-weight:700;background:rgba(0,0,0,.22);display:inline-block;padding:2px 10px;border-radius:4px}.verdict a.rid{color:#fff;background:rgba(255,255,255,.18);padding:1px 6px;border-radius:4px;text-decoration:none}.verdict .x{color:#fff;opacity:.9;margin:0 8px 0 3px}
.tiles{display:flex;gap:10px;flex-wrap:wrap}.tile{background:rgba(255,255,255,.95);color:var(--fg);border-radius:8px;padding:8px 14px;min-width:92px;text-align:center;border-top:4px solid var(--none)}
.tile .n{display:block;font-size:26px;font-weight:700;line-height:1.2}.tile .l{font-size:12px;color:var(--muted)}
.t-passed{border-color:var(--ok)}.t-failed{border-color:var(--bad)}.t-advisory{border-color:var(--adv)}.t-not_run{border-color:var(--skip)}.t-harness_error{border-color:var(--harn)}.t-known_failure{border-color:var(--known)}.t-inconclusive{border-color:var(--known)}.t-total{border-color:#24292f}
.grid{display:grid;grid-template-columns:3fr 2fr;gap:18px}.grid>section,.grid>div>section:first-child{margin-top:0}.grid>section{margin-bottom:0}@media(max-width:900px){.grid{grid-template-columns:1fr}}
table{border-collapse:collapse;width:100%}
.facts th{text-align:left;font-weight:600;color:var(--muted);padding:5px 14px 5px 0;white-space:nowrap;vertical-align:top;width:1%}.facts td{padding:5px 0;border-bottom:1px solid #eef1f4}
.hash{word-break:break-all}
.chip{display:inline-block;background:#eef1f4;border:1px solid var(--line);border-radius:12px;padding:0 8px;font-size:12px;margin:1px 0}.chip.ok{background:#dafbe1;border-color:#aceebb;color:var(--ok)}.chip.bad{background:#ffebe9;border-color:#ffcecb;color:var(--bad)}
.cov{display:flex;flex-direction:column;gap:8px}.bar{height:12px;background:#eef1f4;border-radius:6px;overflow:hidden}.fill{height:100%;background:var(--ok)}
.rid{font-weight:600;white-space:nowrap}a.rid{text-decoration:none}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap;vertical-align:1px}
.b-known_failure{background:var(--known)}.b-inconclusive{background:var(--known)}.b-passed{background:var(--ok)}.b-failed{background:var(--bad)}.b-advisory{background:var(--adv)}.b-not_run{background:var(--skip)}.b-not_judged{background:var(--skip)}.b-harness_error{background:var(--harn)}.b-no_test{background:#fff;color:var(--muted);border:1px solid var(--none)}
.c-failed{color:var(--bad);font-weight:600}.c-advisory{color:var(--adv)}.c-not_run{color:var(--skip)}.c-harness_error{color:var(--harn)}.c-known_failure{color:var(--known)}.c-inconclusive{color:var(--known)}
h2 .count{display:inline-block;font-size:13px;border:1px solid currentColor;border-radius:10px;padding:0 8px;margin-left:6px;vertical-align:2px}
.filters{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin-bottom:12px}
.seg{display:inline-flex;border:1px solid var(--line);border-radius:6px;overflow:hidden}
.seg button{font:inherit;font-size:13px;border:0;border-right:1px solid var(--line);background:#fff;padding:5px 11px;cursor:pointer;color:var(--fg)}.seg button:last-child{border-right:0}
.seg button .n{color:var(--muted);font-size:12px;margin-left:2px}.seg button[aria-pressed=true]{background:#24292f;color:#fff}.seg button[aria-pressed=true] .n{color:#d0d7de}
#q{font:inherit;padding:5px 10px;border:1px solid var(--line);border-radius:6px;min-width:320px;flex:1}
.matrix{font-size:13px}.matrix thead th{position:sticky;top:38px;background:#fff;z-index:2;text-align:left;font-size:12px;color:var(--muted);border-bottom:2px solid var(--line);padding:6px 8px}
.matrix td{padding:5px 8px;border-bottom:1px solid #eef1f4;vertical-align:top}.matrix .id{white-space:nowrap;width:1%}.matrix .oc{width:1%}.matrix .detail{width:26%}
.num{text-align:right;white-space:nowrap;width:1%}
.sec-h th{text-align:left;background:var(--soft);padding:8px;font-size:13px;border-bottom:1px solid var(--line);border-top:1px solid var(--line)}.sec-h .muted{font-weight:400;margin-left:8px}
tr.o-failed td:first-child{box-shadow:inset 3px 0 var(--bad)}tr.o-advisory td:first-child{box-shadow:inset 3px 0 var(--adv)}tr.o-harness_error td:first-child{box-shadow:inset 3px 0 var(--harn)}tr.o-known_failure td:first-child{box-shadow:inset 3px 0 var(--known)}tr.o-inconclusive td:first-child{box-shadow:inset 3px 0 var(--known)}
.lvl{display:inline-block;margin-left:6px;font-size:11px;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 4px}.l-failure{}.l-implied{color:var(--adv)}.l-notable{color:#0969da}
details.words summary{cursor:pointer;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:520px;color:#3d444d}
details.words[open] summary{white-space:normal;color:var(--muted)}
.readings{margin:4px 0 2px 18px;padding:0;color:var(--muted);font-size:12px}
.reason{color:var(--muted)}.clamp{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.card{border:1px solid var(--line);border-left:4px solid var(--bad);border-radius:6px;padding:12px 16px;margin:12px 0;background:#fff}
.card.o-advisory{border-left-color:var(--adv)}.card.o-harness_error{border-left-color:var(--harn)}.card.o-known_failure{border-left-color:var(--known)}.card.o-inconclusive{border-left-color:var(--known)}
.known{color:var(--known);margin:4px 0}
.card>summary{cursor:pointer;list-style:none;position:relative;padding-left:18px}.card>summary::-webkit-details-marker{display:none}
.card>summary::before{content:"▸";position:absolute;left:0;top:1px;color:var(--muted)}.card[open]>summary::before{content:"▾"}
.card>summary h3{margin-left:6px}.gist{display:none;color:var(--muted);font-size:13px;margin-top:3px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}.card:not([open])>summary .gist{display:block}
.card:not([open]){padding-top:7px;padding-bottom:7px;margin:6px 0}.card:not([open])>summary h3{font-size:14px}
h2 .tools{float:right;display:flex;gap:6px}.tools button{font:inherit;font-size:12px;font-weight:400;border:1px solid var(--line);background:#fff;border-radius:6px;padding:2px 10px;cursor:pointer;color:var(--fg)}.card .meta{color:var(--muted);font-size:12px;margin:4px 0 8px}
.reqs{list-style:none;margin:6px 0;padding:0}.reqs li{margin:3px 0}.reqs q{color:#3d444d;font-style:italic}.reqs .sect{color:var(--muted);font-size:12px}
.violations{margin:8px 0;padding:0;list-style:none}.v{padding:6px 10px;border-radius:6px;margin:4px 0;background:#fff5f5;border:1px solid #ffd8d3}.v-advisory{background:#fff8e6;border-color:#f5dd9a}
.v .msg{font-weight:500}.v .ev{font-size:12px;color:var(--muted);margin-top:2px}.x{color:var(--muted);font-size:12px}
.exchange{border:1px solid var(--line);border-radius:6px;margin:10px 0;overflow:hidden}
.reqline{background:var(--soft);padding:7px 10px;border-bottom:1px solid var(--line);display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.method{font-weight:700;color:#0550ae}.path{word-break:break-all}.arrow{color:var(--muted)}.xrid{font-size:12px}
.status{font-family:var(--mono);font-weight:700;padding:0 6px;border-radius:4px;color:#fff}.s2xx{background:var(--ok)}.s3xx{background:#0969da}.s4xx{background:var(--adv)}.s5xx{background:var(--bad)}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:0}.col{padding:4px 12px 10px;min-width:0}.col+.col{border-left:1px solid var(--line)}
@media(max-width:900px){.cols{grid-template-columns:1fr}.col+.col{border-left:0;border-top:1px solid var(--line)}}
.hdrs{font-family:var(--mono);font-size:12px;margin-bottom:6px}.hdrs th{text-align:left;color:var(--muted);font-weight:400;padding:1px 10px 1px 0;white-space:nowrap;vertical-align:top;width:1%}.hdrs td{word-break:break-all;padding:1px 0}
.bmeta{font-size:12px;color:var(--muted);margin:6px 0 4px}pre.body{max-height:260px;overflow:auto;font-size:12px}
.curl{padding:4px 12px 12px;border-top:1px solid var(--line)}.curl-h{display:flex;justify-content:space-between;align-items:center}
pre.cmd{background:#24292f;color:#e6edf3;border-color:#24292f;white-space:pre;overflow-x:auto;word-break:normal}
button.copy{font:inherit;font-size:12px;border:1px solid var(--line);background:#fff;border-radius:6px;padding:2px 10px;cursor:pointer}
.note{font-size:12px;color:var(--muted);margin:6px 0 0}
pre.error{background:#fbefff;border-color:#e3c6ff;color:#512a97;margin:6px 0}
.err{padding:6px 10px;color:var(--bad);font-family:var(--mono);font-size:12px}
.warn{color:#7d4e00;background:#fff8c5;border:1px solid #f5dd9a;border-radius:6px;padding:6px 10px}
details.group>summary,details.reason-g>summary{cursor:pointer;padding:6px 0;font-weight:500}
.titles{columns:2;column-gap:28px;font-size:12.5px;margin:4px 0 10px;padding-left:18px}.titles li{break-inside:avoid}
.small-t{font-size:13px}.small-t th{text-align:left;color:var(--muted);font-weight:600;border-bottom:1px solid var(--line);padding:4px 8px}.small-t td{padding:4px 8px;border-bottom:1px solid #eef1f4}
tr.breaking td{background:#fff5f5}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:24px}
@media print{nav{position:static}.filters{display:none}}
`;

/** The only script of the page: filters for the requirement matrix and copy buttons. It carries no data. */
/** The one inline script: it carries no data (it reads data-* attributes). */
export const SCRIPT = `(function(){
var $$=function(sel,root){return [].slice.call((root||document).querySelectorAll(sel));};
var rows=$$('#matrix tr.req'),groups=$$('#matrix tbody.sec'),buttons=$$('#requirements [data-filter]');
var q=document.getElementById('q'),shown=document.getElementById('shown'),current='all';
var text=rows.map(function(r){var h=r.parentNode.querySelector('.sec-h');
return (r.textContent+' '+(h?h.textContent:'')+' '+(r.getAttribute('data-tests')||'')).toLowerCase();});
function apply(){
var words=(q?q.value:'').toLowerCase().split(/\\s+/).filter(Boolean),n=0;
rows.forEach(function(r,i){
var ok=(current==='all'||r.getAttribute('data-outcome')===current)&&words.every(function(w){return text[i].indexOf(w)>=0;});
r.hidden=!ok;if(ok)n++;});
groups.forEach(function(g){g.hidden=!g.querySelector('tr.req:not([hidden])');});
if(shown)shown.textContent=n+' of '+rows.length;}
function choose(f){current=f;buttons.forEach(function(x){x.setAttribute('aria-pressed',String(x.getAttribute('data-filter')===f));});apply();}
buttons.forEach(function(b){b.addEventListener('click',function(){choose(b.getAttribute('data-filter'));});});
if(q)q.addEventListener('input',apply);
document.addEventListener('click',function(e){
var t=e.target&&e.target.closest?e.target:null;if(!t)return;
var x=t.closest('[data-expand],[data-collapse]');
if(x){var id=x.getAttribute('data-expand')||x.getAttribute('data-collapse');
$$('#'+id+' details.card').forEach(function(d){d.open=x.hasAttribute('data-expand');});return;}
var b=t.closest('button.copy');if(!b)return;
var pre=document.getElementById(b.getAttribute('data-copy'));if(!pre||!navigator.clipboard)return;
navigator.clipboard.writeText(pre.textContent).then(function(){b.textContent='copied';
setTimeout(function(){b.textContent='copy';},1500);},function(){});});
function reveal(){var id=decodeURIComponent(location.hash.slice(1)),el=id&&document.getElementById(id);if(!el)return;
if(el.hidden||(el.parentNode&&el.parentNode.hidden)){if(q)q.value='';choose('all');}
for(var p=el;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;el.scrollIntoView();}
window.addEventListener('hashchange',reveal);reveal();
})();`;

/** The script's hash, the only script the page's Content-Security-Policy admits. */
export const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

package main

// pageCSS styles the HTML view: two columns, one colour per fate.
const pageCSS = `
:root{--kept:#e8f1e8;--pruned:#fdf0d0;--folded:#ece6f6;--carried:#d9f0ee;--lifted:#dce8fb;--shortened:#fde2cc;--merged:#f8dcec;--dropped:#f9d6d6;--summary:#efe3ff;--line:#c9c9d1}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d24;background:#fafafc}
h1{font-size:18px;margin:0 0 4px;word-break:break-all}h2{font-size:15px;margin:0 0 8px}h3{font-size:14px;margin:10px 0 4px}
.top{padding:12px 16px;border-bottom:1px solid var(--line);background:#fff}.line{margin:0;color:#444}.tools{margin:6px 0 0}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px;padding:12px 16px}
.panel{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.panel.over{border-color:#c0392b;box-shadow:0 0 0 2px #f3c4bf}.bad{color:#a32615;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}dt{color:#555}dd{margin:0;word-break:break-word}
.legend{list-style:none;margin:0;padding:0}.legend li{margin:2px 0}
.summary{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,2fr);gap:12px;padding:0 16px 12px}
.summary>div{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px 12px;max-height:420px;overflow:auto}
.summary p{margin:2px 0;word-break:break-word}.summary .li::before{content:"\2022  "}.summary .d1{margin-left:16px}.summary .d2{margin-left:32px}.summary .d3,.summary .d4{margin-left:48px}
blockquote{margin:2px 0;padding-left:8px;border-left:3px solid var(--line);color:#333;word-break:break-word}
.columns{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;padding:0 16px 24px}
.msg{border:1px solid var(--line);border-left-width:5px;border-radius:5px;margin:0 0 6px;padding:4px 8px;background:#fff}
.msg header{font-size:12px;color:#333;display:flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.idx{font-weight:700}.role{text-transform:uppercase;letter-spacing:.03em}.tool{font-family:ui-monospace,monospace}.tok{color:#666}
.chip{border-radius:9px;padding:0 7px;font-size:11px;border:1px solid var(--line)}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0 0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-height:480px;overflow:auto}
details summary{cursor:pointer;font-size:12px;color:#333;white-space:pre-wrap;word-break:break-word}.more{color:#777}
.call{color:#36527a;font-size:12px;margin:2px 0 0}
.f-kept{background:var(--kept);border-left-color:#5a9a5a}.f-pruned{background:var(--pruned);border-left-color:#c9971c}
.f-folded{background:var(--folded);border-left-color:#7c5cc4}.f-carried{background:var(--carried);border-left-color:#2d9c91}
.f-lifted{background:var(--lifted);border-left-color:#3a6fd8}.f-shortened{background:var(--shortened);border-left-color:#d9772b}
.f-merged{background:var(--merged);border-left-color:#c2408a}.f-dropped{background:var(--dropped);border-left-color:#c0392b}
.f-summary{background:var(--summary);border-left-color:#7c5cc4;border-width:2px 2px 2px 5px}
.msg:target,.msg.hl{outline:3px solid #f0b400}
@media (max-width:800px){.columns,.summary{grid-template-columns:1fr}}
`

// pageJS is the page's one script: expand and collapse every long
// message, and outline a message's counterpart on the other side while
// the pointer rests on it. It reads the page; it writes no markup.
const pageJS = `(function(){
"use strict";
function all(open){document.querySelectorAll("details").forEach(function(d){d.open=open;});}
document.getElementById("expand").addEventListener("click",function(){all(true);});
document.getElementById("collapse").addEventListener("click",function(){all(false);});
function mark(e,on){var m=e.target.closest(".msg");if(!m)return;m.querySelectorAll("header a").forEach(function(a){var t=document.getElementById(a.getAttribute("href").slice(1));if(t)t.classList.toggle("hl",on);});}
document.addEventListener("mouseover",function(e){mark(e,true);});
document.addEventListener("mouseout",function(e){mark(e,false);});
document.documentElement.setAttribute("data-ready","1");
})();
`

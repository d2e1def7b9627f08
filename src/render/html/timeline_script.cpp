#include "render/html/timeline_script.h"

namespace stepscope::render::html {

namespace {

// Every string from the trace reaches the page through textContent or canvas fillText, never
// through innerHTML: neither parses markup.
constexpr std::string_view kScript = R"js(
(function(){
  var ROW=14,LABEL=180,HEAD=34,GAP=6;
  function duration(ns){
    if(ns<1000)return ns+' ns';
    if(ns<1e6)return (ns/1e3).toFixed(3)+' \u00b5s';
    return (ns/1e6).toFixed(3)+' ms';
  }
  function setup(root){
    root.setAttribute('data-ready','1');
    var source=document.getElementById(root.getAttribute('data-source'));
    var data=JSON.parse(source.textContent);
    var canvas=root.querySelector('canvas'),ctx=canvas.getContext('2d');
    var details=root.querySelector('.timeline-details');
    var s=data.strings,ev=data.events,span=Math.max(1,data.span_ns);
    var laneY=[],height=HEAD;
    data.lanes.forEach(function(lane){laneY.push(height);height+=lane[2]*ROW+GAP;});
    height+=4;
    var view={start:0,end:span},width=0,highlight=null,spans=[],pinned=-1;
    function str(i){return i<0?'':s[i];}
    function className(e){return data.classes[e[5]]||'';}
    function resize(){
      width=Math.max(320,root.querySelector('.timeline-canvas').clientWidth);
      var dpr=window.devicePixelRatio||1;
      canvas.width=Math.round(width*dpr);canvas.height=Math.round(height*dpr);
      canvas.style.width=width+'px';canvas.style.height=height+'px';
      ctx.setTransform(dpr,0,0,dpr,0,0);
    }
    function x(t){return LABEL+(t-view.start)/(view.end-view.start)*(width-LABEL);}
    function t(px){return view.start+(px-LABEL)/(width-LABEL)*(view.end-view.start);}
    function axis(){
      var range=view.end-view.start,step=Math.pow(10,Math.floor(Math.log10(range/5)));
      if(range/step>10)step*=2;if(range/step>10)step*=2.5;
      ctx.fillStyle='#555';ctx.font='11px sans-serif';
      for(var v=Math.ceil(view.start/step)*step;v<=view.end;v+=step){
        var px=x(v);ctx.fillRect(px,0,1,4);ctx.fillText(duration(Math.round(v)),px+2,10);
      }
    }
    function draw(){
      ctx.clearRect(0,0,width,height);
      ctx.save();ctx.beginPath();ctx.rect(LABEL,0,width-LABEL,height);ctx.clip();
      data.steps.forEach(function(st,k){
        ctx.fillStyle=k%2?'#f4f6fa':'#eef1f7';
        ctx.fillRect(x(st[1]),12,x(st[2])-x(st[1]),height-12);
        ctx.fillStyle='#333';ctx.font='11px sans-serif';
        ctx.fillText('step '+st[0]+' ('+st[3]+')',Math.max(LABEL,x(st[1]))+3,22);
      });
      data.phases.forEach(function(p){
        ctx.fillStyle=data.phase_colors[p[0]];ctx.fillRect(x(p[1]),25,Math.max(1,x(p[2])-x(p[1])),6);
      });
      spans.forEach(function(sp){
        ctx.fillStyle='rgba(214,39,40,0.10)';
        ctx.fillRect(x(sp[0]),HEAD,Math.max(2,x(sp[1])-x(sp[0])),height-HEAD);
      });
      var drawn=0;
      for(var k=0;k<ev.length;k++){
        var e=ev[k];
        if(e[2]+e[3]<view.start||e[2]>view.end)continue;
        drawn++;
        var x0=Math.max(LABEL,x(e[2])),x1=Math.min(width,x(e[2]+e[3])),w=Math.max(1,x1-x0);
        var y=laneY[e[0]]+e[1]*ROW,lit=highlight&&highlight.has(k);
        ctx.globalAlpha=highlight&&!lit?0.35:1;
        ctx.fillStyle=lit?data.highlight_color:data.class_colors[e[5]];
        ctx.fillRect(x0,y+1,w,ROW-2);
        if(k===pinned){ctx.strokeStyle='#000';ctx.strokeRect(x0,y+1,w,ROW-2);}
        if(w>40){
          ctx.fillStyle='#fff';ctx.font='10px sans-serif';
          ctx.fillText(str(e[4]).slice(0,Math.floor(w/6)),x0+2,y+ROW-4);
        }
      }
      ctx.globalAlpha=1;axis();ctx.restore();
      ctx.fillStyle='#333';ctx.font='11px sans-serif';
      data.lanes.forEach(function(lane,i){
        ctx.fillStyle='#ddd';ctx.fillRect(0,laneY[i]-GAP/2,width,1);
        ctx.fillStyle='#333';ctx.fillText(lane[0].slice(0,28),4,laneY[i]+11);
      });
      root.setAttribute('data-drawn-events',String(drawn));
      root.setAttribute('data-view',Math.round(view.start)+','+Math.round(view.end));
    }
    function hit(mx,my){
      var time=t(mx),tolerance=(view.end-view.start)/(width-LABEL)*2,best=-1;
      for(var k=0;k<ev.length;k++){
        var e=ev[k],y=laneY[e[0]]+e[1]*ROW;
        if(my<y||my>=y+ROW||time<e[2]-tolerance||time>e[2]+e[3]+tolerance)continue;
        if(best<0||ev[best][3]>e[3])best=k;
      }
      return best;
    }
    function describe(k){
      if(k<0){details.textContent='Hover or click an event for its details.';return;}
      var e=ev[k],lines=[str(e[4]),className(e)+' \u00b7 '+duration(e[3])+' \u00b7 at '+duration(e[2])+
        ' after the first event shown \u00b7 lane '+data.lanes[e[0]][0]];
      lines.push('step '+(e[6]<0?'none (outside the kept steps)':e[6])+' \u00b7 phase '+(e[7]<0?'none marked':data.phase_names[e[7]]));
      if(e[8]>=0)lines.push('launched by op: '+str(e[8]));
      if(e[9]>=0)lines.push('launch call: '+str(e[9]));
      if(e[10]>=0)lines.push('Python: '+str(e[10]));
      if(e[11]>=0)lines.push('nn.Module: '+str(e[11]));
      details.textContent=lines.join('\n');
    }
    function point(ev2){var r=canvas.getBoundingClientRect();return [ev2.clientX-r.left,ev2.clientY-r.top];}
    canvas.addEventListener('wheel',function(w){
      w.preventDefault();
      var p=point(w),center=p[0]<LABEL?(view.start+view.end)/2:t(p[0]);
      var f=Math.exp(w.deltaY*0.002),len=Math.max(100,(view.end-view.start)*f);
      var share=(center-view.start)/(view.end-view.start);
      view.start=center-share*len;view.end=view.start+len;draw();
    },{passive:false});
    var drag=null;
    canvas.addEventListener('mousedown',function(m){drag={x:point(m)[0],start:view.start,end:view.end,moved:false};});
    window.addEventListener('mouseup',function(m){
      if(drag&&!drag.moved&&m.target===canvas){var p=point(m);pinned=hit(p[0],p[1]);describe(pinned);draw();}
      drag=null;
    });
    canvas.addEventListener('mousemove',function(m){
      var p=point(m);
      if(drag){
        var dt=(p[0]-drag.x)/(width-LABEL)*(drag.end-drag.start);
        if(Math.abs(p[0]-drag.x)>2)drag.moved=true;
        view.start=drag.start-dt;view.end=drag.end-dt;draw();return;
      }
      if(pinned<0)describe(hit(p[0],p[1]));
    });
    root.querySelector('button.timeline-reset').addEventListener('click',function(){
      view={start:0,end:span};highlight=null;spans=[];pinned=-1;
      root.setAttribute('data-highlighted','0');describe(-1);draw();
    });
    function select(f,card){
      highlight=new Set(f.events);spans=f.spans;
      var lo=Infinity,hi=-Infinity;
      f.events.forEach(function(k){lo=Math.min(lo,ev[k][2]);hi=Math.max(hi,ev[k][2]+ev[k][3]);});
      if(lo>hi)f.spans.forEach(function(sp){lo=Math.min(lo,sp[0]);hi=Math.max(hi,sp[1]);});
      if(lo<=hi){var pad=Math.max(1000,(hi-lo)*0.05);view={start:lo-pad,end:hi+pad};}
      root.setAttribute('data-highlighted',String(f.events.length));
      root.setAttribute('data-finding',f.id);
      document.querySelectorAll('.finding.selected').forEach(function(c){c.classList.remove('selected');});
      card.classList.add('selected');
      draw();root.scrollIntoView({block:'start'});
    }
    var pathButton=root.querySelector('button.timeline-path');
    if(pathButton)pathButton.addEventListener('click',function(){
      highlight=new Set(data.critical_path);spans=[];pinned=-1;
      root.setAttribute('data-highlighted',String(data.critical_path.length));
      root.setAttribute('data-finding','critical-path');
      document.querySelectorAll('.finding.selected').forEach(function(c){c.classList.remove('selected');});
      draw();
    });
    document.querySelectorAll('.finding[data-finding]').forEach(function(card){
      var key=card.getAttribute('data-finding').split(':');
      if(key[0]!==String(data.rank))return;
      var f=data.findings[Number(key[1])];
      if(!f)return;
      card.classList.add('linked');
      card.addEventListener('click',function(){select(f,card);});
    });
    window.addEventListener('resize',function(){resize();draw();});
    resize();describe(-1);draw();
    if(pathButton&&location.hash==='#timeline-critical-path-'+data.rank)pathButton.click();
    var m=/^#timeline-finding-(-?\d+)-(\d+)$/.exec(location.hash);
    if(m&&m[1]===String(data.rank)){
      var card=document.querySelector('.finding[data-finding="'+m[1]+':'+m[2]+'"]');
      if(card)card.click();
    }
  }
  // This script runs before the page's error recorder is installed: record its own failures.
  document.querySelectorAll('div.timeline:not([data-ready])').forEach(function(root){
    try{setup(root);}catch(error){
      var body=document.body;
      body.setAttribute('data-errors',(body.getAttribute('data-errors')||'')+'timeline: '+error.message+'; ');
    }
  });
})();
)js";

}  // namespace

std::string_view timeline_script() { return kScript; }

}  // namespace stepscope::render::html

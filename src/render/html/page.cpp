#include "render/html/page.h"

#include "render/html/html_escape.h"

namespace stepscope::render::html {

namespace {

constexpr std::string_view kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0;background:#fafafa}
/* main itself is the one centred column: a block's own margin can then never pull it off. */
main{max-width:980px;margin:0 auto;padding:0 16px 48px}
header{padding:16px 0 4px}
h1{font-size:22px;margin:0}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.meta,.note{color:#666;font-size:12.5px}
.figures{font-variant-numeric:tabular-nums}
.verdict{background:#fff;border-left:6px solid #e45756;padding:8px 14px;margin:10px 0}
.verdict.healthy{border-color:#54a24b}
.verdict .bottleneck{font-weight:700;font-size:16px;margin:0}
.finding{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:4px 14px 8px;margin:10px 0}
.badge{font-size:11px;text-transform:uppercase;padding:1px 6px;border-radius:3px;background:#bbb;color:#fff;vertical-align:middle}
.finding.high .badge{background:#d62728}.finding.medium .badge{background:#f58518}.finding.low .badge{background:#4c78a8}
table{border-collapse:collapse;width:100%;background:#fff;font-size:12.5px;margin:6px 0}
th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
td:first-child{overflow-wrap:anywhere}
th.num,td.num,td[data-v]{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th:after{content:" \2195";color:#aaa}
svg.chart{box-sizing:border-box;width:100%;height:auto;background:#fff;border:1px solid #eee;display:block}
svg .grid{stroke:#eee}
svg text{font-size:11px;fill:#555}
svg .unit,svg .axis-label{fill:#333;font-weight:600}
svg rect.busy{fill:#4c78a8}
svg .marker{stroke:#bbb;stroke-dasharray:3 3}
.legend{font-size:12px;margin:4px 0 8px}
.legend span{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:baseline}
)css";

constexpr std::string_view kScript = R"js(
(function(){
  var body=document.body;
  window.addEventListener('error',function(e){
    body.setAttribute('data-errors',(body.getAttribute('data-errors')||'')+e.message+'; ');
  });
  function key(cell){var v=cell.getAttribute('data-v');return v===null?cell.textContent:v;}
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th,column){
      th.addEventListener('click',function(){
        var rows=Array.prototype.slice.call(table.tBodies[0].rows);
        var ascending=th.getAttribute('data-order')!=='ascending';
        rows.sort(function(a,b){
          var x=key(a.cells[column]),y=key(b.cells[column]);
          var nx=parseFloat(x),ny=parseFloat(y);
          var d=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
          return ascending?d:-d;
        });
        th.setAttribute('data-order',ascending?'ascending':'descending');
        rows.forEach(function(r){table.tBodies[0].appendChild(r);});
      });
    });
  });
  body.setAttribute('data-script-ok','1');
})();
)js";

}  // namespace

void append_page_head(std::string& out, std::string_view title) {
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>";
  append_escaped(out, title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style></head>\n<body><main>\n";
}

void append_page_tail(std::string& out) {
  out += "</main>\n<script>";
  out += kScript;
  out += "</script>\n</body></html>\n";
}

std::string page(std::string_view title, std::string_view body) {
  constexpr std::size_t kHeadAndTailBytes = 1024;  // besides the style and the script
  constexpr std::size_t kLongestEscape = 6;        // `&quot;`
  std::string out;
  out.reserve(kStyle.size() + kScript.size() + title.size() * kLongestEscape + body.size() +
              kHeadAndTailBytes);
  append_page_head(out, title);
  out += body;
  append_page_tail(out);
  return out;
}

}  // namespace stepscope::render::html

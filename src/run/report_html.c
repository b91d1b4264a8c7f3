/* report_html.c - the job's report as one self-contained HTML file: the summary, the findings, and
 * charts per GPU over time drawn by Chart.js (inlined from Debian's libjs-chart.js: no network). The
 * page marks itself when it is done (body data-charts, data-charts-drawn: canvases with ink;
 * data-errors: script errors), which the browser test reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "files.h"
#include "summary.h"

#define HTML_MAX_POINTS 2000

static void html_text(gw_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '&': buf_puts(b, "&amp;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        default: buf_putc(b, *s);
        }
    }
}

/* JSON inside <script>: '<', '>' and '&' written as JSON escapes (\u003c, \u003e, \u0026), so that
 * nothing in a string ("</script>", "<!--") can end or change the element, and the text stays JSON
 * for JSON.parse. They appear in JSON only inside strings, where the escapes mean the same. */
static void script_text(gw_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_puts(b, "\\u003c"); break;
        case '>': buf_puts(b, "\\u003e"); break;
        case '&': buf_puts(b, "\\u0026"); break;
        default: buf_putc(b, *s);
        }
    }
}

static const char *style = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}"
                           "h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:14px;margin:12px 0 4px}"
                           "pre.summary{background:#f6f8fa;padding:12px;overflow-x:auto;font-size:12.5px}"
                           ".sim{background:#fff3cd;padding:6px 10px;border:1px solid #e0c36a}"
                           "li.critical b{color:#b00020}li.warning b{color:#a15c00}li.info b{color:#0b5394}"
                           ".chart{display:inline-block;margin:0 16px 8px 0;vertical-align:top}";

static const char *script =
    "(function(){\n"
    "var errors=[];\n"
    "function fail(m){errors.push(String(m));document.body.setAttribute('data-errors',errors.join(' | '));}\n"
    "window.addEventListener('error',function(e){fail(e.message);});\n"
    "var data=JSON.parse(document.getElementById('data').textContent);\n"
    "var root=document.getElementById('charts');var canvases=[];\n"
    "var colors=['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd'];\n"
    "function pts(t,v){var o=[];for(var i=0;i<t.length;i++)o.push({x:t[i],y:v[i]});return o;}\n"
    "function chart(parent,title,sets,ytitle,ymin,ymax){\n"
    " var box=document.createElement('div');box.className='chart';\n"
    " var h=document.createElement('h3');h.textContent=title;box.appendChild(h);\n"
    " var c=document.createElement('canvas');c.width=620;c.height=220;c.setAttribute('data-title',title);\n"
    " box.appendChild(c);parent.appendChild(box);\n"
    " sets.forEach(function(s,i){s.borderColor=s.borderColor||colors[i%colors.length];s.backgroundColor=s.borderColor;"
    "\n"
    "  s.borderWidth=s.borderWidth||1.5;if(s.pointRadius===undefined)s.pointRadius=0;});\n"
    " var y={title:{display:true,text:ytitle}};if(ymin!==undefined&&ymin!==null)y.min=ymin;"
    "if(ymax!==undefined&&ymax!==null)y.max=ymax;\n"
    " new Chart(c.getContext('2d'),{type:'line',data:{datasets:sets},options:{animation:false,responsive:false,\n"
    "  parsing:false,normalized:true,spanGaps:false,scales:{x:{type:'linear',title:{display:true,\n"
    "  text:'seconds since the job started'}},y:y},plugins:{legend:{display:true}}}});\n"
    " canvases.push(c);}\n"
    "try{\n"
    "data.gpus.forEach(function(g){var s=g.series;if(!s)return;\n"
    " var sec=document.createElement('section');sec.className='gpu';\n"
    " var h=document.createElement('h2');h.textContent='GPU '+g.index+' \\u2014 '+g.name;sec.appendChild(h);\n"
    " root.appendChild(sec);\n"
    " chart(sec,'Utilization and SM activity',[{label:'utilization %',data:pts(s.t,s.utilization)},\n"
    "  {label:'SM active %',data:pts(s.t,s.sm_active)}],'%',0,100);\n"
    " chart(sec,'Memory used',[{label:'used MiB',data:pts(s.t,s.memory_used_mib)}],'MiB',0,g.memory.total_mib);\n"
    " chart(sec,'Power against the cap',[{label:'power W',data:pts(s.t,s.power_w)},\n"
    "  {label:'cap W',data:pts(s.t,s.power_limit_w),borderDash:[6,4]}],'W',0);\n"
    " chart(sec,'Temperatures',[{label:'GPU \\u00b0C',data:pts(s.t,s.temperature_c)},\n"
    "  {label:'HBM \\u00b0C',data:pts(s.t,s.temperature_memory_c)}],'\\u00b0C');\n"
    "});\n"
    "var m=data.steps.marks;if(m.length){var sec=document.createElement('section');\n"
    " var h=document.createElement('h2');h.textContent='Steps ('+data.steps.source+')';sec.appendChild(h);\n"
    " root.appendChild(sec);\n"
    " chart(sec,'Step time',[{label:'seconds per step',data:m.map(function(x){return{x:x[0],y:x[1]};}),\n"
    "  showLine:false,pointRadius:2}],'s',0);}\n"
    "}catch(e){fail(e&&e.message?e.message:e);}\n"
    "var drawn=0;canvases.forEach(function(c){var d=c.getContext('2d').getImageData(0,0,c.width,c.height).data;\n"
    " var ink=0;for(var i=3;i<d.length;i+=4)if(d[i]>0)ink++;if(ink>200)drawn++;});\n"
    "document.body.setAttribute('data-charts',String(canvases.length));\n"
    "document.body.setAttribute('data-charts-drawn',String(drawn));\n"
    "})();\n";

static void findings_html(gw_buf *b, const run_summary *s)
{
    buf_puts(b, "<h2>Findings</h2>\n");
    if (!s->findings.n) {
        buf_puts(b, "<p id=\"findings\">None: no detector found a bottleneck in the job's window.</p>\n");
        return;
    }
    buf_puts(b, "<ul id=\"findings\">\n");
    for (int i = 0; i < s->findings.n; i++) {
        const diag_finding *f = &s->findings.f[i];
        const char *sev = diag_severity_name(f->severity);
        buf_printf(b, "<li class=\"finding %s\"><b>%s %s</b> ", sev, sev, f->detector);
        html_text(b, f->summary);
        if (f->n_advice) {
            buf_puts(b, "<ul>");
            for (int k = 0; k < f->n_advice; k++) {
                buf_puts(b, "<li>");
                html_text(b, f->advice[k]);
                buf_puts(b, "</li>");
            }
            buf_puts(b, "</ul>");
        }
        buf_puts(b, "</li>\n");
    }
    buf_puts(b, "</ul>\n");
}

int summary_html(const run_summary *s, const run_data *d, const step_parser *sp, const char *path,
                 const char *chartjs_path, char *err, size_t n)
{
    char why[256];
    char *chartjs = gw_read_file(chartjs_path, 8u << 20, NULL, why, sizeof why);
    if (!chartjs) {
        snprintf(err, n, "Chart.js %s: %s (Debian package libjs-chart.js)", chartjs_path, why);
        return -1;
    }
    if (strstr(chartjs, "</script")) {
        snprintf(err, n, "Chart.js %s holds '</script': it cannot be inlined", chartjs_path);
        free(chartjs);
        return -1;
    }
    char *json = summary_json(s, d, sp, HTML_MAX_POINTS);
    gw_buf text, b;
    buf_init(&text);
    buf_init(&b);
    summary_text(s, d, &text);
    buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpuwatch run ");
    html_text(&b, s->meta.id);
    buf_printf(&b, "</title>\n<style>%s</style>\n</head><body>\n<h1>Job ", style);
    html_text(&b, s->meta.id);
    if (s->meta.name[0]) {
        buf_puts(&b, " \xe2\x80\x94 ");
        html_text(&b, s->meta.name);
    }
    buf_puts(&b, "</h1>\n<p><code>");
    html_text(&b, s->meta.command);
    buf_puts(&b, "</code></p>\n");
    if (s->simulated)
        buf_puts(&b, "<p class=\"sim\">SIMULATED GPUs (gpusim): the GPU readings come from a scenario and relate "
                     "to the job by time only.</p>\n");
    buf_puts(&b, "<pre class=\"summary\">");
    html_text(&b, text.data ? text.data : "");
    buf_puts(&b, "</pre>\n");
    findings_html(&b, s);
    buf_puts(&b, "<div id=\"charts\"></div>\n<script id=\"data\" type=\"application/json\">");
    script_text(&b, json ? json : "{}");
    buf_puts(&b, "</script>\n<script>\n");
    buf_puts(&b, chartjs);
    buf_puts(&b, "\n</script>\n<script>\n");
    buf_puts(&b, script);
    buf_puts(&b, "</script>\n</body></html>\n");
    free(json);
    free(chartjs);
    buf_release(&text);
    int rc = 0;
    if (!json || b.oom) {
        snprintf(err, n, "out of memory");
        rc = -1;
    } else {
        char why[256];
        if (gw_write_file(path, b.data, b.len, why, sizeof why) != 0) {
            snprintf(err, n, "%s", why);
            rc = -1;
        }
    }
    buf_release(&b);
    return rc;
}

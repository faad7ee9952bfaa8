/* fs_html: escaping, labels, required marks, errors tied to inputs,
 * values kept, no script. */
#include "fs_html.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_test.h"
#include "fs_validate.h"

#include <apr_strings.h>

static const char EVIL[] = "<script>alert('x')</script>\"&";
static const char EVIL_ESC[] = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;";

static void escaping(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_html_escape(p, EVIL), EVIL_ESC);
    assert_string_equal(fs_html_escape(p, ""), "");
    assert_string_equal(fs_html_escape(p, "plain \xc3\xa9"), "plain \xc3\xa9");
    const char *m = fs_html_message(p, EVIL, EVIL, EVIL);
    assert_null(strstr(m, "<script"));
    assert_non_null(strstr(m, EVIL_ESC));
}

static int count(const char *h, const char *needle) {
    int n = 0;
    for (const char *q = h; (q = strstr(q, needle)); q++)
        n++;
    return n;
}

static void page(void **state) {
    apr_pool_t *p = *state;
    const char *fields_json = apr_psprintf(
        p,
        "[{\"key\":\"name\",\"type\":\"text\",\"required\":true,\"label\":\"%s\","
        "\"description\":\"%s\",\"placeholder\":\"%s\"},"
        "{\"key\":\"age\",\"type\":\"integer\",\"label\":\"Age\"},"
        "{\"key\":\"size\",\"type\":\"select\",\"label\":\"Size\",\"options\":[{\"value\":\"%s\","
        "\"label\":\"%s\"}]},"
        "{\"key\":\"tags\",\"type\":\"multiselect\",\"label\":\"Tags\",\"options\":[{\"value\":"
        "\"a\","
        "\"label\":\"A\"},{\"value\":\"b\",\"label\":\"B\"}]},"
        "{\"key\":\"stars\",\"type\":\"rating\",\"label\":\"Stars\"},"
        "{\"key\":\"ok\",\"type\":\"boolean\",\"label\":\"I agree\",\"required\":true},"
        "{\"key\":\"ref\",\"type\":\"hidden\"},"
        "{\"key\":\"why\",\"type\":\"textarea\",\"label\":\"Why\","
        "\"visibleIf\":{\"field\":\"size\",\"equals\":\"%s\"}}]",
        "Name \\\"<b>\\\"", "Help 'me'", "<i>", "v<1>", "L<1>", "v<1>");
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, fields_json));
    assert_int_equal(fs->n, 8);
    json_object *vals;
    const char *body = "{\"name\":\"\",\"age\":\"<script>x</script>\",\"tags\":[\"b\"],"
                       "\"stars\":4,\"ref\":\"news'\\\"letter\",\"zz\":1}";
    assert_null(fs_json_parse_object(p, body, strlen(body), &vals));
    fs_error *e = fs_validate(p, fs, vals);
    assert_non_null(e);
    fs_locales *ls;
    assert_null(fs_locales_load(p, "share/locales", &ls));
    fs_page pg = {EVIL, EVIL, fs,
                  vals, e,    "https://f.example/f/frm_1?a=1&b='",
                  EVIL, 1,    fs_locales_get(ls, "en"),
                  NULL, NULL, NULL,
                  0,    NULL, NULL,
                  NULL, 0,    0,
                  0,    NULL, NULL,
                  NULL, NULL, 0,
                  NULL, NULL, 0,
                  0};
    const char *h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<html lang=\"en\" dir=\"ltr\">"));
    assert_non_null(strstr(h, "<button type=\"submit\">Submit</button>"));
    /* nothing owner- or respondent-supplied is raw */
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<b>"));
    assert_null(strstr(h, "<i>"));
    assert_null(strstr(h, "v<1>"));
    assert_non_null(strstr(h, "&lt;script&gt;x&lt;/script&gt;"));
    assert_non_null(strstr(h, "action=\"https://f.example/f/frm_1?a=1&amp;b=&#39;\""));
    assert_non_null(strstr(h, "value=\"news&#39;&quot;letter\""));
    /* labels bound to inputs, required marked */
    assert_non_null(strstr(h, "<label for=\"f-name\">Name &quot;&lt;b&gt;&quot; "
                              "<span class=\"req\">(required)</span></label>"));
    assert_non_null(strstr(h, "id=\"f-name\" name=\"name\" value=\"\" required"));
    assert_non_null(strstr(h, "<label for=\"f-tags-1\">B</label>"));
    assert_non_null(strstr(h, "<legend>Stars</legend>"));
    /* errors: summary linked to the inputs, aria on the inputs */
    assert_non_null(strstr(h, "class=\"summary\" role=\"alert\""));
    assert_non_null(strstr(h, "<a href=\"#f-name\">"));
    assert_non_null(strstr(h, "<a href=\"#f-ok\">"));
    assert_non_null(strstr(h, "aria-invalid=\"true\" aria-describedby=\"f-name-help f-name-err\""));
    assert_non_null(strstr(h, "<p class=\"err\" id=\"f-age-err\">"));
    assert_non_null(strstr(h, "<li>This form has no question zz.</li>"));
    /* values kept */
    assert_non_null(strstr(h, "value=\"b\" checked"));
    assert_non_null(strstr(h, "value=\"4\" checked"));
    assert_int_equal(count(h, " checked"), 2);
    /* the conditional question explains when it applies */
    assert_non_null(
        strstr(h, "Answer only if \xe2\x80\x9cSize\xe2\x80\x9d is \xe2\x80\x9cL&lt;1&gt;"));
    /* honeypot, notice, no script, viewport */
    assert_non_null(strstr(h, "name=\"_hp\""));
    assert_non_null(strstr(h, "class=\"notice\""));
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(h, "name=\"viewport\""));
    /* the owner's button label, escaped */
    pg.submit_label = EVIL;
    assert_non_null(strstr(fs_html_form(p, &pg), apr_pstrcat(p, "<button type=\"submit\">",
                                                             EVIL_ESC, "</button>", NULL)));
    pg.submit_label = NULL;
    assert_int_equal(count(h, "<label"), 1 /* name */ + 1 + 1 + 2 + 5 + 1 + 1 + 1 /* hp */);
    /* the submission token: a hidden input found where fs_html_form put it,
     * never in an owner's text that imitates it */
    assert_int_equal(fs_html_token_at(h, strlen(h)), -1);
    const char *tok = "fst_0123456789abcdefghijkl0123456789ABCDEFGHIJKL";
    pg.token = tok;
    pg.title = FS_HTML_TOKEN_MARK "fst_forged";
    const char *ht = fs_html_form(p, &pg);
    long at = fs_html_token_at(ht, strlen(ht));
    assert_true(at > 0);
    assert_memory_equal(ht + at, tok, FS_FORM_TOKEN_LEN);
    assert_non_null(strstr(ht, "<input type=\"hidden\" name=\"_token\" value=\"fst_0123"));
    assert_int_equal(fs_html_token_at(ht, (apr_size_t)at + 10), -1); /* cut short */
    pg.token = NULL;
}

/* The same page in German and in Hebrew: every built-in string and the
 * field errors from the language's file, lang and dir on <html>. */
static void page_languages(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, "share/locales", &ls));
    const char *fields_json =
        "[{\"key\":\"name\",\"type\":\"text\",\"required\":true,\"label\":\"Name\"},"
        "{\"key\":\"size\",\"type\":\"select\",\"label\":\"Size\",\"options\":[{\"value\":"
        "\"s\",\"label\":\"S\"}]},"
        "{\"key\":\"stars\",\"type\":\"rating\",\"label\":\"Stars\",\"validation\":{\"maximum\":3}}"
        ","
        "{\"key\":\"ok\",\"type\":\"boolean\",\"label\":\"OK\"},"
        "{\"key\":\"why\",\"type\":\"text\",\"label\":\"Why\","
        "\"visibleIf\":{\"field\":\"ok\",\"equals\":true}}]";
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, fields_json));
    json_object *vals;
    assert_null(fs_json_parse_object(p, "{\"size\":\"x\"}", 12, &vals));
    fs_error *e = fs_validate(p, fs, vals);
    assert_non_null(e);
    fs_page pg = {"T",  NULL,   fs,
                  vals, e,      "https://f.example/f/frm_1",
                  NULL, 1,      fs_locales_get(ls, "de"),
                  NULL, NULL,   NULL,
                  0,    "name", NULL,
                  NULL, 0,      0,
                  0,    NULL,   NULL,
                  NULL, NULL,   0,
                  NULL, NULL,   0,
                  0};
    const char *h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<html lang=\"de\" dir=\"ltr\">"));
    /* settings.confirmation: the page says where the copy goes */
    assert_non_null(strstr(h, "Eine Kopie Ihrer Antworten wird an die Adresse gesendet, die Sie "
                              "unter \xe2\x80\x9eName\xe2\x80\x9c angeben."));
    assert_non_null(strstr(h, "<button type=\"submit\">Absenden</button>"));
    /* no decline form unless the link is an ask's; then a second form,
     * its action escaped, its button in the page's language */
    assert_null(strstr(h, "class=\"decline\""));
    pg.decline_action = "https://f.example/f/frm_1/decline?l=fsl_a&x=\"<";
    h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "</form>\n<form method=\"post\" action=\"https://f.example/f/"
                              "frm_1/decline?l=fsl_a&amp;x=&quot;&lt;\" class=\"decline\">"));
    assert_non_null(strstr(h, "<button type=\"submit\">Ablehnen</button>\n</form>\n</main>"));
    pg.decline_action = NULL;
    h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<span class=\"req\">(Pflichtfeld)</span>"));
    assert_non_null(strstr(h, "Bitte w\xc3\xa4hlen\xe2\x80\xa6</option>"));
    assert_non_null(strstr(h, ">1 von 3</label>"));
    assert_non_null(strstr(h, "Dieses Feld bitte leer lassen"));
    assert_non_null(strstr(h, "Nur beantworten, wenn \xe2\x80\x9eOK\xe2\x80\x9c angekreuzt ist."));
    assert_non_null(strstr(h, "Bei 2 Antworten gibt es Probleme"));
    assert_non_null(strstr(h, "Fehler: Name ist ein Pflichtfeld."));
    assert_non_null(
        strstr(h, "Fehler: Size muss eine der angebotenen Auswahlm\xc3\xb6glichkeiten sein."));
    assert_null(strstr(h, "Submit"));
    assert_null(strstr(h, "required)"));

    pg.loc = fs_locales_get(ls, "he");
    h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<html lang=\"he\" dir=\"rtl\">"));
    pg.loc = fs_locales_get(ls, "zh");
    h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<html lang=\"zh-Hans\" dir=\"ltr\">"));
    h = fs_html_message_in(p, fs_locales_get(ls, "ar"), "T", "H", "M");
    assert_non_null(strstr(h, "<html lang=\"ar\" dir=\"rtl\">"));
}

static void style_hash(void **state) {
    apr_pool_t *p = *state;
    const char *s = fs_html_style_src(p);
    assert_int_equal(strncmp(s, "'sha256-", 8), 0);
    assert_int_equal(strlen(s), 8 + 44 + 1);
    assert_non_null(strstr(fs_html_css(), "max-width:40rem"));
    /* nothing is placed off the page: on a right-to-left page (which
     * scrolls leftwards) it would widen the page by as much, and the form
     * opened scrolled to blank space (seen in Chromium, Hebrew, 360 px) */
    assert_null(strstr(fs_html_css(), "left:-"));
    assert_null(strstr(fs_html_css(), "right:-"));
}

/* The pages that used to be written by hand in the glue: escaped here. */
static void other_pages(void **state) {
    apr_pool_t *p = *state;
    const char *h = fs_html_problem_type(p, 422, EVIL, EVIL);
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(h, apr_pstrcat(p, "<title>422 ", EVIL_ESC, "</title>", NULL)));
    assert_non_null(strstr(h, apr_pstrcat(p, "<h1>", EVIL_ESC, "</h1>", NULL)));
    assert_non_null(strstr(h, "HTTP status 422."));
    assert_non_null(strstr(h, fs_html_css())); /* the one style sheet (CSP hash) */

    h = fs_html_confirm(p, EVIL, EVIL, "verify\"><script>", "token", "a\"b<c", EVIL);
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(h, "<form method=\"post\" action=\"verify&quot;&gt;&lt;script&gt;\">"));
    assert_non_null(strstr(h, "<input type=\"hidden\" name=\"token\" value=\"a&quot;b&lt;c\">"));
    assert_non_null(
        strstr(h, apr_pstrcat(p, "<button type=\"submit\">", EVIL_ESC, "</button>", NULL)));
    assert_non_null(strstr(h, "<meta name=\"robots\" content=\"noindex\">"));
    assert_int_equal(count(h, "<form"), 1);
    assert_null(strstr(h, "<script"));
}

/* the accent colour as a second style sheet, the logo with the
 * title as alt text, the dark scheme in the built-in sheet */
static void theme(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs =
        fs_fieldset_from_json(p, fs_json_parse_trusted(p, "[{\"key\":\"a\",\"type\":\"text\","
                                                          "\"label\":\"A\"}]"));
    fs_page pg = {EVIL, NULL, fs,   NULL, NULL,      "https://f.example/f/frm_1",
                  NULL, 0,    NULL, NULL, "#1D4ED8", "https://cdn.example/l.png?a=1&b=\"x",
                  0,    NULL, NULL, NULL, 0,         0,
                  0,    NULL, NULL, NULL, NULL,      0,
                  NULL, NULL, 0,    0};
    const char *h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<style>:root{--accent:#1d4ed8}</style>"));
    assert_string_equal(fs_html_theme_css(p, "#1D4ED8"), ":root{--accent:#1d4ed8}");
    assert_non_null(strstr(h, apr_pstrcat(p,
                                          "<img class=\"logo\" src=\"https://cdn.example/"
                                          "l.png?a=1&amp;b=&quot;x\" alt=\"",
                                          EVIL_ESC, "\">", NULL)));
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(fs_html_css(), "@media (prefers-color-scheme:dark)"));
    assert_non_null(strstr(fs_html_css(), "background:var(--accent,#1a56db)"));
    /* the hash of the theme sheet is the one CSP will name */
    assert_string_equal(fs_html_css_src(p, fs_html_css()), fs_html_style_src(p));
    assert_string_not_equal(fs_html_css_src(p, ":root{--accent:#1d4ed8}"), fs_html_style_src(p));
    /* not a colour: no second sheet (nothing raw reaches the page) */
    pg.accent = "red}body{display:none";
    h = fs_html_form(p, &pg);
    assert_null(strstr(h, "--accent:"));
    assert_null(strstr(h, "display:none"));
    assert_null(fs_html_theme_css(p, NULL));
    pg.accent = NULL;
    pg.logo_url = NULL;
    h = fs_html_form(p, &pg);
    assert_null(strstr(h, "<img"));
    assert_int_equal(count(h, "<style>"), 1);
}

static const struct CMUnitTest tests[] = {
    FS_TEST(theme),          FS_TEST(escaping),   FS_TEST(page),
    FS_TEST(page_languages), FS_TEST(style_hash), FS_TEST(other_pages),
};
FS_TEST_MAIN(tests)

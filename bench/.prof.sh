#!/usr/bin/env bash
# make bench: starts PostgreSQL and httpd (event MPM, conf/dev.conf.in) under
# var/bench, creates an account and a published form, and runs wrk against
#   (a) a static file of the same size as the JSON view, served by the same httpd
#   (b) GET /f/{id} as JSON   (c) GET /f/{id} as HTML   (d) POST /f/{id} JSON
#   (e) GET /v1/forms/{id} with an API key
#   (g) POST /f/{id2} multipart with one 100 KB file (bench/upload.lua),
#       ratio to (d), the plain JSON submission
#   (f) pgbench: a one-row INSERT into a table shaped like submissions (same
#       columns, indexes and foreign keys), same PostgreSQL, same concurrency
#       as (d), synchronous_commit on
# printing requests a second, p99 latency, the ratio ((d) to (f), the others
# to (a)) and non-2xx answers, then the resident memory of httpd's children
# before and after.
# BENCH_SECONDS (default 10), BENCH_CONNECTIONS (64), BENCH_THREADS (2).
# BENCH_REQUESTS=N: then a mixed run of (b)-(e) until N requests are served,
# sampling the children's memory every 10 s; it prints the growth from the
# start of the second minute to the end.
#
# httpd runs the configuration `make run` uses (pool sizes included); only
# the submission rate limit and the monthly quota are lifted, since every
# request comes from one address and one account.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd); cd "$ROOT"
SECS=${BENCH_SECONDS:-10}; CONNS=${BENCH_CONNECTIONS:-64}; THREADS=${BENCH_THREADS:-2}
command -v wrk >/dev/null || { echo "bench: wrk is missing (make deps)" >&2; exit 1; }
command -v pgbench >/dev/null || PATH="$PATH:$(ls -d /usr/lib/postgresql/*/bin | tail -1)"
make -s module >/dev/null
source scripts/statedir
VAR="$(formsvc_var)/bench"; rm -rf "$VAR/httpd" "$VAR/htdocs"
PORT=$(bash scripts/free-port); PGPORT=$(bash scripts/free-port)
source scripts/stack
stack_up "$VAR" "$PORT" "$PGPORT" "$VAR/error.log" "/dev/null"
cat >> "$VAR/httpd.conf" <<CONF
# one client address and one account send everything
FormsvcRateLimit submit off
FormsvcQuota unverified submissions 100000000
FormsvcQuota unverified requests 100000000
FormsvcFileQuotaUnverified 100000000
CONF
[ "$(id -u)" -eq 0 ] && chown -R www-data: "$VAR/htdocs" "$VAR/httpd"
cleanup() {
  /usr/sbin/apache2 -f "$VAR/httpd.conf" -k stop 2>/dev/null || true
  sleep 1; bash scripts/pg stop "$VAR/pg" || true
}
trap cleanup EXIT INT TERM
"${HTTPD[@]}" -f "$VAR/httpd.conf" -k start
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 50); do curl -fs "$BASE/healthz" >/dev/null && break; sleep 0.1; done
PSQL=(psql -X -q -At -h "$VAR/pg/sock" -p "$PGPORT" -U postgres formsvc)
SIGNUP=$(curl -fs -H 'Content-Type: application/json' -d "{\"email\":\"bench$$@example.com\"}" "$BASE/v1/signup")
UID_=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["user"]["id"])' <<<"$SIGNUP")
KEY=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"]["secret"])' <<<"$SIGNUP")
FID="frm_$(date +%s%N | tail -c 11)BENCHBENCHBENCH0"
"${PSQL[@]}" -c "INSERT INTO forms (id, user_id, title, description, status, fields) VALUES ('$FID', '$UID_',
  'Conference feedback', 'Five questions, one minute.', 'published', '[
  {\"key\":\"name\",\"type\":\"text\",\"label\":\"Your name\",\"required\":true,\"position\":0},
  {\"key\":\"email\",\"type\":\"email\",\"label\":\"E-mail\",\"position\":1},
  {\"key\":\"size\",\"type\":\"select\",\"label\":\"T-shirt\",\"position\":2,
   \"options\":[{\"value\":\"s\",\"label\":\"Small\"},{\"value\":\"m\",\"label\":\"Medium\"},{\"value\":\"l\",\"label\":\"Large\"}]},
  {\"key\":\"stars\",\"type\":\"rating\",\"label\":\"How was it?\",\"position\":3},
  {\"key\":\"consent\",\"type\":\"boolean\",\"label\":\"You may contact me\",\"required\":true,\"position\":4}]')"
FID2="frm_$(date +%s%N | tail -c 11)BENCHUPLOAD0000"
"${PSQL[@]}" -c "INSERT INTO forms (id, user_id, title, status, fields) VALUES ('$FID2', '$UID_',
  'Uploads', 'published', '[{\"key\":\"name\",\"type\":\"text\",\"label\":\"Name\",\"position\":0},
  {\"key\":\"file\",\"type\":\"file\",\"label\":\"File\",\"required\":true,\"position\":1}]')"
JSON_SIZE=$(curl -fs -H 'Accept: application/json' "$BASE/f/$FID" | wc -c)
HTML_SIZE=$(curl -fs -H 'Accept: text/html' "$BASE/f/$FID" | wc -c)
head -c "$JSON_SIZE" /dev/urandom | base64 -w0 | head -c "$JSON_SIZE" > "$VAR/htdocs/static.txt"
[ "$(id -u)" -eq 0 ] && chown www-data: "$VAR/htdocs/static.txt"
curl -fs -o /dev/null "$BASE/static.txt" || { echo "bench: static file not served" >&2; exit 1; }
BODY='{"name":"Ada Lovelace","email":"ada@example.com","size":"m","stars":5,"consent":true}'
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d "$BODY" "$BASE/f/$FID")
[ "$code" = 201 ] || { echo "bench: POST answered $code" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "$BASE/v1/forms/$FID")
[ "$code" = 200 ] || { echo "bench: GET /v1/forms/{id} answered $code" >&2; exit 1; }

head -c 102400 /dev/zero > "$VAR/upload.bin"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: application/json' -F name=Ada \
  -F "file=@$VAR/upload.bin;type=application/octet-stream" "$BASE/f/$FID2")
[ "$code" = 201 ] || { echo "bench: upload answered $code" >&2; exit 1; }

# (f)'s table: the submissions table's shape, indexes and foreign keys
"${PSQL[@]}" -c "DROP TABLE IF EXISTS bench_submissions;
  CREATE TABLE bench_submissions (LIKE submissions INCLUDING DEFAULTS INCLUDING INDEXES);
  ALTER TABLE bench_submissions ADD FOREIGN KEY (form_id) REFERENCES forms(id) ON DELETE CASCADE,
                                ADD FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE"
cat > "$VAR/insert.sql" <<SQL
INSERT INTO bench_submissions (id, form_id, user_id, form_version, data)
VALUES ('sub_' || md5(random()::text), '$FID', '$UID_', 1, '$BODY');
SQL
chmod 644 "$VAR/insert.sql"
wrk -t2 -c8 -d3s -s bench/post.lua "$BASE/f/$FID" > /dev/null
(wrk -t2 -c8 -d12s -s bench/post.lua "$BASE/f/$FID" | grep Requests/sec) &
sleep 1
perf record -a -g -o /tmp/perf.data -- sleep 8 > /dev/null 2>&1
wait

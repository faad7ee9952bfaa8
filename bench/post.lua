-- wrk script: POST a valid JSON submission
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"Ada Lovelace","email":"ada@example.com","size":"m","stars":5,"consent":true}'

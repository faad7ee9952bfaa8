-- wrk script: POST a multipart submission with one 100 KB file
local b = "BenchBoundary7MA4YWxkTrZu0gW"
local file = string.rep("0123456789abcdef", 6400) -- 102400 bytes
wrk.method = "POST"
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. b
wrk.headers["Accept"] = "application/json"
wrk.body = "--" .. b .. "\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda Lovelace\r\n"
  .. "--" .. b .. "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"data.bin\"\r\n"
  .. "Content-Type: application/octet-stream\r\n\r\n" .. file .. "\r\n--" .. b .. "--\r\n"

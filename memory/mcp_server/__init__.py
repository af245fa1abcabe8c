"""The memory tools over the Model Context Protocol (issue 15), on the official `mcp` SDK.

`principal.py` says who a request acts for (a token's user, or the user fixed at start-up over
stdio); `server.py` exposes the agent's three tools (memory/tools.py, shared code) and two
read-only resources; `http.py` puts the bearer-token check in front of streamable HTTP.
"""

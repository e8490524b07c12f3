"""An MCP prompt whose text names a code the person never typed (served with `--with-fixtures`)."""

from app.mcp_server.extras import Extras
from app.mcp_server.prompts import Task

EXTRAS = Extras(prompts={"add_the_usual": Task("adds a model", (), "请把机型 XZ9999 添加到数据库。")})

"""A minimal MCP client, as an agent's host runs one: starts `axsight serve` over
stdio with the official MCP Python SDK and prints what the agent would see.
scripts/demo runs it inside a headless desktop; by hand:

    scripts/with-desktop --apps gtk3-widget-factory -- \\
        .venv/bin/python scripts/demo_client.py --bin target/debug/axsight

Prints the server's tools, get_applications and get_window_tree of --app with the
byte count of each answer. Exits non-zero when a call fails.
"""
import argparse
import asyncio
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# A host normally lists these in its server config ("env"): without them the SDK
# passes only HOME, PATH, USER... and the server has to find the desktop itself
# (which it does when one X display runs, but several desktops may run here).
DESKTOP_VARS = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR")
RULE = "-" * 72


def size(text):
    n = len(text.encode())
    return f"{n} bytes" if n < 10_000 else f"{n / 1024:.1f} KB"


def show(title, text):
    print(f"\n>> {title}  [{size(text)}]\n{RULE}\n{text.rstrip()}\n{RULE}")


async def call(session, name, args):
    result = await session.call_tool(name, args, read_timeout_seconds=30)
    text = "".join(b.text for b in result.content if b.type == "text")
    if result.is_error:
        raise SystemExit(f"demo: {name} {args} failed: {text}")
    return text


async def demo(binary, app):
    env = {k: os.environ[k] for k in DESKTOP_VARS if os.environ.get(k)}
    params = StdioServerParameters(command=binary, args=["serve"], env=env)
    # The server logs to stderr; keep it out of the way, show it on failure.
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    tools = await session.list_tools()
                    listing = tools.model_dump_json(by_alias=True, exclude_none=True)
                    info = init.server_info
                    print(f"server: {info.name} {info.version} "
                          f"(MCP {init.protocol_version}), started as: {binary} serve")
                    print(f"tools/list: {len(tools.tools)} tools, {size(listing)} "
                          "(the whole listing a model gets on every turn)")
                    for tool in tools.tools:
                        ro = "read-only" if tool.annotations and tool.annotations.read_only_hint else ""
                        print(f"  - {tool.name:<17} {ro:<9} {tool.description}")
                    print(f"instructions: {size(init.instructions or '')}")

                    show("get_applications {}", await call(session, "get_applications", {}))
                    args = {"app": app}
                    tree = await call(session, "get_window_tree", args)
                    elements = sum(1 for line in tree.splitlines() if line.lstrip().startswith("#u"))
                    show(f"get_window_tree {args}  ({elements} elements)", tree)
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(errlog.read())
            raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/axsight", help="the axsight binary")
    parser.add_argument("--app", default="gtk3-widget-factory", help="whose tree to print")
    args = parser.parse_args()
    asyncio.run(demo(os.path.abspath(args.bin), args.app))


if __name__ == "__main__":
    main()

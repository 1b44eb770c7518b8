"""`lro proxy` in front of @modelcontextprotocol/server-filesystem (npm): directory_tree of a
generated tree of 1,200 files is offloaded, and lro_extract finds files in it."""

import json

import anyio

from conftest import descriptor_of, extract, npm_server, proxied

DIRS, FILES = 30, 40


def make_tree(root):
    for d in range(DIRS):
        folder = root / f"module_{d:02d}" / "src"
        folder.mkdir(parents=True)
        for f in range(FILES):
            (folder / f"file_{d:02d}_{f:02d}.txt").write_text("x")


def test_directory_tree_is_offloaded_and_searchable(tmp_path):
    tree = tmp_path / "tree"
    make_tree(tree)

    async def scenario():
        server = [npm_server("mcp-server-filesystem"), str(tmp_path)]
        async with proxied(server, tmp_path / "lro") as session:
            result = await session.call_tool("directory_tree", {"path": str(tree)})
            descriptor = descriptor_of(result)
            path = descriptor["file_path"]
            # What the server returned, intact: the same tree, whatever the records are.
            records = await extract(session, file_path=path, lines={"start": 0})
            assert records, descriptor["summary"]
            names = await extract(session, file_path=path, query='.. | objects | select(.type? == "file") | .name')
            if not names:
                # structuredContent is {"content": "<the tree as JSON text>"}: one record.
                names = await extract(session, file_path=path,
                                      query='.content | fromjson | .. | objects | select(.type? == "file") | .name')
            assert len(names) == DIRS * FILES
            assert "file_17_23.txt" in names
            modules = await extract(session, file_path=path, search={"pattern": "module_29"})
            assert modules

            # Small calls stay inline.
            listing = await session.call_tool("list_directory", {"path": str(tree / "module_03")})
            assert "src" in listing.content[0].text

    anyio.run(scenario)

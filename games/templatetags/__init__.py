"""The game pages' template tags and filters: the largest loops of the game page built in Python
(the template language spent more time on them than on the rest of the page), and parts kept
once rendered (docs/web-performance.md).

- ``maze``: ``{% maze_grid page %}``: the game page's maze as table rows;
- ``seats``: ``{% seat_items page %}``: the players around the table, as list items;
- ``log_lines``: ``{% log_items ... %}``: the move log's lines of one round, as list items;
- ``kept``: ``{% kept ... %}``: a part of a page rendered once per change of its data;
- ``durations``: filters for durations in words.
"""

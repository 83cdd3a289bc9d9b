"""Reports: papermill rendering, offline HTML, the text scoreboard, figure builders and notebook views."""

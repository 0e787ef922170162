"""The fake cluster itself (kadmin.testing), checked over raw sockets and by clients kadmin did not write."""

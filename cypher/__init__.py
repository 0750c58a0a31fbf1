"""Every Cypher statement anchorgraph runs, one named ``.cypher`` file each (a resource package).

Files are loaded by name through ``anchorgraph.graph.queries``; each opens with a ``//`` header that
names its parameters and what it returns.
"""

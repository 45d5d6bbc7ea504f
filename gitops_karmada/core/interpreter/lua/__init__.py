"""The sandboxed Lua 5.1 runtime for ResourceInterpreterCustomization scripts and the ``kube`` library."""

import Bookmarks
print("bookmark: not implemented yet")

import Preferences
print("defaults: not implemented yet")

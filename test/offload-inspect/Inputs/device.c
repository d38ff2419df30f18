// Device code for bundles made by hand.
int DeviceValue = 42;
int deviceFunction(int X) { return X + DeviceValue; }

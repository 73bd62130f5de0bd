"""The timeline that Nsight Systems and Kineto traces share: model to screens."""

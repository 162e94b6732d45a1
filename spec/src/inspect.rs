//! What a GML file says about itself: its layers and their parameters, and which of this
//! library's architectures have that layer structure (with the options the file cannot say).
